import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from '../../../lib/html.ts';
import { formSession, loginHandler } from '../../login/login-form.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage } from '../../pages.ts';
import { redirectIfAuthenticated } from '../../plugins/auth.ts';
import { LOGIN_FORM } from '../../throttled-form.ts';
import type { FormState } from '../../views/forms.ts';
import { loginPage } from '../../views/pages/login.ts';

/**
 * The panel's own login (docs/guides/admin-panel.md): the same form rules as /login, but the admin session guard,
 * its own throttle key and audit events, and the admins provider — so a user the panel check refuses
 * gets the answer of a wrong password (auth.failed, same status and timing) and no session.
 */
export async function adminLoginRoutes(app: FastifyInstance) {
  const render = async (request: FastifyRequest, state: FormState) =>
    loginPage(request, state, {
      action: '/admin/login',
      session: await formSession(request, 'admin'),
      title: request.t('admin.login.title'),
      lead: request.t('admin.login.lead'),
      variant: 'admin',
      links: html`<p class="links muted">${request.t('admin.login.hint')}</p>`,
    });

  app.get(
    '/admin/login',
    { preHandler: redirectIfAuthenticated('admin', '/admin') },
    async (request, reply) => sendPage(reply, await render(request, {})),
  );

  app.post(
    '/admin/login',
    {
      preHandler: app.authBudget,
      config: { loginGuard: 'admin', throttledForm: { ...LOGIN_FORM, field: 'email', render } },
    },
    loginHandler(app, { guard: 'admin', render, redirectTo: '/admin' }),
  );

  app.post('/admin/logout', async (request, reply) => {
    const session = await request.sessionOf('admin').load();
    await session.logout();
    if (expectsJson(request)) return reply.code(204).send();
    return reply.redirect('/admin/login');
  });
}
