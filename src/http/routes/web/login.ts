import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from '../../../lib/html.ts';
import { loginHandler } from '../../login-form.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage } from '../../pages.ts';
import { redirectIfAuthenticated } from '../../plugins/auth.ts';
import type { FormState } from '../../views/forms.ts';
import { loginPage } from '../../views/pages/login.ts';

/** GET/POST /login and POST /logout of the web guard (CONTRACT §4). */
export async function loginRoutes(app: FastifyInstance) {
  const { config } = app.services;
  const render = (request: FastifyRequest, state: FormState) =>
    loginPage(request, state, {
      action: '/login',
      guard: 'web',
      title: request.t('pages.log_in'),
      lead: request.t('pages.login_lead'),
      account: null,
      links: html`<p class="links"><a href="/forgot-password">${request.t('pages.forgot_password')}</a></p>
  <p class="links">${request.t('pages.no_account')} <a href="/register">${request.t('pages.register')}</a></p>`,
    });

  // Already signed in: the login form has nothing to offer.
  app.get(
    '/login',
    { preHandler: redirectIfAuthenticated('web', config.loginRedirect) },
    async (request, reply) => sendPage(reply, await render(request, {})),
  );

  app.post(
    '/login',
    { preHandler: app.authBudget },
    loginHandler(app, { guard: 'web', render, redirectTo: config.loginRedirect }),
  );

  app.post('/logout', async (request, reply) => {
    const session = await request.sessionOf('web').load();
    await session.logout();
    if (expectsJson(request)) return reply.code(204).send();
    session.flash('status', request.t('pages.logged_out'));
    return reply.redirect('/');
  });
}
