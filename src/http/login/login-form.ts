import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEVICE_COOKIE } from '../../auth/login/device-cookies.ts';
import type { LoginChannel } from '../../auth/login/login.ts';
import type { Html } from '../../lib/html.ts';
import { field, rules, validate, validationError } from '../../lib/validation.ts';
import { expectsJson } from '../negotiation.ts';
import { sendPage, validateForm } from '../pages.ts';
import { auditContext, formBody } from '../request-context.ts';
import { type FormSession, type FormState, formState } from '../views/forms.ts';
import { completeLogin } from './login-completion.ts';

/**
 * The seed's login form: email required + e-mail format, password required + min 6, remember optional.
 * `"remember": null` means "not ticked", as in Laravel (Breeze and Fortify read it with
 * `$request->boolean('remember')`): react-sanctum posts exactly that when the box is not ticked. A null
 * here can only mean less (no remember-me cookie), unlike `abilities: null` on /api/tokens, which
 * stays refused because it would otherwise default to ["*"].
 */
export const loginSchema = {
  email: field.required(rules.string(), rules.email(), rules.max(255)),
  password: field.required(rules.string(), rules.min(6), rules.max(4096)),
  remember: field.nullable(rules.boolean()),
};

interface LoginInput {
  email: string;
  password: string;
  remember?: boolean;
}

export interface LoginForm {
  /** The session guard signed into, which is also the login channel (throttle key, audit events). */
  readonly guard: LoginChannel & ('web' | 'admin');
  readonly render: (request: FastifyRequest, state: FormState) => Promise<Html>;
  /** Where a login goes when no intended URL was remembered. */
  readonly redirectTo: string;
}

/**
 * The POST handler of the web and admin login forms (docs/guides/sessions-and-spas.md, docs/guides/admin-panel.md): validation → the login use
 * case (throttle, credentials, the guard's provider) → a new session + redirect. Failure shows the
 * form again (422) with auth.failed on the email field and no redirect; lockout → 429 with
 * auth.throttle.
 */
export function loginHandler(app: FastifyInstance, form: LoginForm) {
  const { auth } = app.services;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const t = request.t;
    const render = (state: FormState) => form.render(request, state);
    const validated = await validateForm(
      request,
      reply,
      () => validate<LoginInput>(request.body, loginSchema, t),
      render,
    );
    if (!validated.ok) return validated.reply;
    const input = validated.value;
    const result = await auth.login(
      form.guard,
      { email: input.email, password: input.password, deviceCookie: request.cookies[DEVICE_COOKIE] },
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
      return sendPage(reply, await render(formState(formBody(request), error.errors)), status);
    }
    return completeLogin(request, reply, {
      guard: form.guard,
      user: result.user,
      remember: input.remember === true,
      fallback: form.redirectTo,
      proof: 'password',
      twoFactorOwed: result.twoFactor,
    });
  };
}

/** The form facts of a guard's session for a login or challenge page (views/forms.ts FormSession). */
export async function formSession(request: FastifyRequest, guard: string): Promise<FormSession> {
  const session = await request.sessionOf(guard).load();
  return {
    csrfToken: session.csrfToken(),
    status: session.flashed('status'),
    offersRememberMe: session.cookies.offersRememberMe,
  };
}
