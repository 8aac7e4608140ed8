import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../../lib/html.ts';
import { formSession, loginHandler } from '../../login/login-form.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage } from '../../pages.ts';
import { redirectIfAuthenticated, resolveIdentity } from '../../plugins/auth.ts';
import { LOGIN_FORM } from '../../throttled-form.ts';
import type { FormState } from '../../views/forms.ts';
import { providerButtons, signInFailureAlert, signInFailureMessage } from '../../views/login-providers.ts';
import { loginPage } from '../../views/pages/login.ts';

/**
 * The web login page: the password form and "Sign in with a passkey" (passkey-login.ts answers with it
 * too when a passkey sign-in fails). Under the title, where the login will continue when another site
 * sent the visitor (forward auth).
 */
export async function webLoginPage(request: FastifyRequest, state: FormState) {
  const { providers } = request.server.services.identities;
  const { relyingParty } = request.server.services.passkeys;
  return loginPage(request, state, {
    action: '/login',
    session: await formSession(request, 'web'),
    title: request.t('pages.log_in'),
    lead: await lead(request),
    account: null,
    // Only where browsers can use them: not when APP_URL names an IP address (passkeys/relying-party.ts).
    passkeys: relyingParty.usable ? { origin: relyingParty.origin } : null,
    providers: providerButtons(request.t, providers.available),
    alert: signInFailureAlert(
      signInFailureMessage(
        request.t,
        request.query as Record<string, unknown>,
        (name) => providers.get(name)?.label,
      ),
    ),
    links: html`<p class="links"><a href="/forgot-password">${request.t('pages.forgot_password')}</a></p>
  <p class="links">${request.t('pages.no_account')} <a href="/register">${request.t('pages.register')}</a></p>`,
  });
}

async function lead(request: FastifyRequest) {
  const intended = request.intendedUrl('web').get();
  const target = intended === null ? null : request.server.services.forwardAuth.redirectTarget(intended);
  if (target === null) return request.t('pages.login_lead');
  return request.t('forward.continue_to', { host: new URL(target).host });
}

/** GET/POST /login and POST /logout of the web guard (docs/guides/sessions-and-spas.md). */
export async function loginRoutes(app: FastifyInstance) {
  const { config } = app.services;
  const { forwardAuth } = app.services;
  const render = webLoginPage;

  /**
   * `/login?redirect=<absolute URL>` (docs/integrations/forward-auth.md, the login wall of forward auth): an allowed target
   * is remembered as the intended URL, so the password form, the two-factor challenge and a passkey all
   * end there through completeLogin; a browser already signed in (or restored by its remember-me
   * cookie on this very request) goes there at once. Any other value is ignored, never echoed.
   */
  const redirectParameter = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = (request.query as Record<string, unknown>)['redirect'];
    if (raw === undefined) return;
    const target = forwardAuth.redirectTarget(raw);
    if (target === null) return;
    if ((await resolveIdentity(request, ['web'])) !== null) return reply.redirect(target);
    request.intendedUrl('web').remember(reply, target);
  };

  // Already signed in: the login form has nothing to offer.
  app.get(
    '/login',
    { preHandler: [redirectParameter, redirectIfAuthenticated('web', config.loginRedirect)] },
    async (request, reply) => sendPage(reply, await render(request, {})),
  );

  app.post(
    '/login',
    {
      preHandler: app.authBudget,
      config: { loginGuard: 'web', throttledForm: { ...LOGIN_FORM, field: 'email', render } },
    },
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
