import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { attemptLogin } from '../../../auth/login.ts';
import { type Html, html } from '../../../lib/html.ts';
import { field, rules, validate, validationError } from '../../../lib/validation.ts';
import { expectsJson } from '../../negotiation.ts';
import type { FormState } from '../../views/forms.ts';
import { loginPage } from '../../views/pages/login.ts';
import { auditContext } from '../api/support.ts';
import { formBody, redirectIfAuthenticated, safeLocalPath, sendPage, validateForm } from './support.ts';

/** The seed's login form: email required + e-mail format, password required + min 6, remember optional. */
export const loginSchema = {
  email: field.required(rules.string(), rules.email(), rules.max(255)),
  password: field.required(rules.string(), rules.min(6), rules.max(4096)),
  remember: field.optional(rules.boolean()),
};

export interface LoginInput {
  email: string;
  password: string;
  remember?: boolean;
}

export interface LoginFlow {
  guard: 'web' | 'admin';
  channel: 'web' | 'admin';
  provider: string;
  render: (request: FastifyRequest, state: FormState) => Promise<Html>;
  redirectTo: () => string;
}

/**
 * POST handler shared by the web and admin logins (CONTRACT §4, §6): validation → throttle →
 * credentials with the remember flag → new session + redirect; failure shows the form again (422)
 * with auth.failed on the email field and no redirect; lockout → 429 with auth.throttle.
 */
export function loginHandler(app: FastifyInstance, flow: LoginFlow) {
  const { services } = app;
  const provider = app.userProviders.get(flow.provider)!;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const t = request.t;
    const render = (state: FormState) => flow.render(request, state);
    const validated = await validateForm(
      request,
      reply,
      () => validate<LoginInput>(request.body, loginSchema, t),
      render,
    );
    if (!validated.ok) return validated.reply;
    const input = validated.value;
    const result = await attemptLogin(
      {
        db: services.database.db,
        hasher: services.hasher,
        limiter: services.limiter,
        limit: { max: services.config.loginMaxAttempts, windowSeconds: services.config.loginDecaySeconds },
      },
      provider,
      flow.channel,
      input,
      auditContext(request),
    );
    if (result.status !== 'ok') {
      const message =
        result.status === 'throttled'
          ? t('auth.throttle', { seconds: result.retryAfterSeconds })
          : t('auth.failed');
      const error = validationError({ email: [message] }, t);
      const status = result.status === 'throttled' ? 429 : 422;
      if (result.status === 'throttled') reply.header('retry-after', String(result.retryAfterSeconds));
      if (expectsJson(request))
        return reply.code(status).send({ message: error.summary, errors: error.errors });
      const { password: _dropped, ...old } = formBody(request);
      return sendPage(reply, await render({ errors: error.errors, old }), status);
    }
    const session = await request.sessionOf(flow.guard).load();
    const intended = session.pull('intended');
    await session.login(result.user.id, input.remember === true);
    if (expectsJson(request)) return reply.code(204).send();
    return reply.redirect(safeLocalPath(intended, flow.redirectTo()));
  };
}

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
  app.get('/login', { preHandler: redirectIfAuthenticated }, async (request, reply) =>
    sendPage(reply, await render(request, {})),
  );

  app.post(
    '/login',
    loginHandler(app, {
      guard: 'web',
      channel: 'web',
      provider: 'users',
      render,
      redirectTo: () => config.loginRedirect,
    }),
  );

  app.post('/logout', async (request, reply) => {
    const session = await request.sessionOf('web').load();
    await session.logout();
    if (expectsJson(request)) return reply.code(204).send();
    session.flash('status', request.t('pages.logged_out'));
    return reply.redirect('/');
  });
}
