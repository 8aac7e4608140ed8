import type { FastifyInstance, FastifyRequest } from 'fastify';
import { field, rules, validate, validationError } from '../../../lib/validation.ts';
import { TooManyRequestsError } from '../../errors.ts';
import { completeLogin } from '../../login/login-completion.ts';
import { passkeyBinding } from '../../login/passkey-session.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage, validateForm } from '../../pages.ts';
import { auditContext, formBody } from '../../request-context.ts';
import { LOGIN_FORM } from '../../throttled-form.ts';
import { formState } from '../../views/forms.ts';
import { webLoginPage } from './login.ts';

export const passkeyLoginSchema = {
  // Its shape is the domain's business (passkeys/responses.ts): a missing or malformed credential is
  // refused like one that fails verification.
  credential: field.optional(),
  remember: field.nullable(rules.boolean()),
};

/**
 * GET /passkeys/login/options and POST /passkeys/login (docs/guides/passkeys.md): sign-in with a discoverable
 * passkey, no e-mail asked. Success ends in completeLogin with proof 'passkey' (fresh session id, the
 * intended URL, JSON 204; no two-factor challenge, unless the authenticator did not verify the person
 * and the user has two-factor on). Failure: 422 on `credential` with auth.failed.
 */
export async function passkeyLoginRoutes(app: FastifyInstance) {
  const { passkeys, auth, clock, config, limiter } = app.services;

  /**
   * Each options request stores a challenge for five minutes, from a guest too (the one GET that writes:
   * the challenge must live server-side, bound to the session). Bounded per client IP like the checks
   * of the auth budget (IP_AUTH_LIMIT a minute, on its own key: loading the login page is not a guess).
   */
  const optionsLimit = { max: config.ipAuthLimit, windowSeconds: 60 };
  const optionsBudget = async (request: FastifyRequest) => {
    if (optionsLimit.max === 0) return;
    const attempt = await limiter.attempt(`passkey-options:${request.ip}`, optionsLimit);
    if (!attempt.allowed) throw new TooManyRequestsError(attempt.retryAfterSeconds);
  };

  app.get('/passkeys/login/options', { preHandler: optionsBudget }, async (request) => {
    return passkeys.loginOptions(passkeyBinding(request), clock.now());
  });

  // Inside the per-IP budget of every password, code or passkey check (docs/security.md), before any work.
  app.post(
    '/passkeys/login',
    {
      preHandler: app.authBudget,
      config: { loginGuard: 'web', throttledForm: { ...LOGIN_FORM, field: 'email', render: webLoginPage } },
    },
    async (request, reply) => {
      const t = request.t;
      const render = webLoginPage;
      const validated = await validateForm(
        request,
        reply,
        () => validate<{ credential?: unknown; remember?: boolean }>(request.body, passkeyLoginSchema, t),
        (state) => render(request, state),
      );
      if (!validated.ok) return validated.reply;
      const result = await passkeys.login(
        auth.providerOf('web'),
        validated.value.credential,
        passkeyBinding(request),
        auditContext(request),
      );
      if (result.status === 'failed') {
        const error = validationError({ credential: [t('auth.failed')] }, t);
        if (expectsJson(request))
          return reply.code(422).send({ message: error.summary, errors: error.errors });
        return sendPage(reply, await render(request, formState(formBody(request), error.errors)), 422);
      }
      return completeLogin(request, reply, {
        guard: 'web',
        user: result.user,
        remember: validated.value.remember === true,
        fallback: config.loginRedirect,
        proof: 'passkey',
        passkey: result.passkey,
        twoFactorOwed: result.twoFactorOwed,
      });
    },
  );
}
