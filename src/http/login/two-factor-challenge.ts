import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { field, rules, validate, validationError } from '../../lib/validation.ts';
import { livePendingLogin, PENDING_LOGIN_KEY } from '../../two-factor/pending-login.ts';
import type { Proof } from '../../two-factor/two-factor.ts';
import { expectsJson } from '../negotiation.ts';
import { sendPage, validateForm } from '../pages.ts';
import { auditContext, formBody } from '../request-context.ts';
import { type FormState, formState } from '../views/forms.ts';
import { twoFactorChallengePage } from '../views/pages/two-factor-challenge.ts';
import { CHALLENGE_PATHS, completeLogin } from './login-completion.ts';
import { formSession } from './login-form.ts';

export interface ChallengeRoutesOptions {
  readonly guard: 'web' | 'admin';
  readonly loginPath: string;
  /** Where a completed login goes without an intended URL. */
  readonly fallback: string;
  readonly variant?: string;
}

export const challengeSchema = {
  code: field.optional(rules.string(), rules.max(64)),
  recovery_code: field.optional(rules.string(), rules.max(64)),
};

/**
 * GET/POST of one guard's two-factor challenge (docs/guides/two-factor.md): the second step of a login whose
 * password was right (login-completion.ts stored the pending login in this browser's session).
 * Success ends in completeLogin (fresh session id, the remember flag of /login, the intended URL).
 */
export function twoFactorChallengeRoutes(options: ChallengeRoutesOptions) {
  const path = CHALLENGE_PATHS[options.guard];
  return async (app: FastifyInstance) => {
    const { auth, clock } = app.services;
    const recoveryMode = (request: FastifyRequest) =>
      (request.query as Record<string, unknown> | undefined)?.['recovery'] === '1' ||
      Object.hasOwn(formBody(request), 'recovery_code');
    const render = async (request: FastifyRequest, state: FormState) =>
      twoFactorChallengePage(request, state, {
        action: path,
        session: await formSession(request, options.guard),
        loginPath: options.loginPath,
        recovery: recoveryMode(request),
        variant: options.variant,
      });

    /** No pending login (never started, expired, or already used): back to the login form. */
    const expired = async (request: FastifyRequest, reply: FastifyReply) => {
      const session = await request.sessionOf(options.guard).load();
      session.pull(PENDING_LOGIN_KEY);
      const message = request.t('two_factor.login_expired');
      if (expectsJson(request)) return reply.code(401).send({ message });
      // A guest who opens the page without ever starting a login has no row, and a message for it
      // would create one: guests' GETs store nothing (docs/security.md).
      if (session.key !== null || request.method !== 'GET') session.flash('status', message);
      return reply.redirect(options.loginPath);
    };

    app.get(path, async (request, reply) => {
      const session = await request.sessionOf(options.guard).load();
      if (livePendingLogin(session.get(PENDING_LOGIN_KEY), clock.now()) === null)
        return expired(request, reply);
      return sendPage(reply, await render(request, {}));
    });

    // The per-IP budget of every password, code or passkey check (docs/security.md), before any work.
    app.post(
      path,
      {
        preHandler: app.authBudget,
        config: {
          loginGuard: options.guard,
          throttledForm: { message: 'auth.throttle_code', busy: 'auth.busy', field: 'code', render },
        },
      },
      async (request, reply) => {
        const t = request.t;
        const session = await request.sessionOf(options.guard).load();
        const pending = livePendingLogin(session.get(PENDING_LOGIN_KEY), clock.now());
        if (pending === null) return expired(request, reply);
        const provider = auth.providerOf(options.guard);
        const user = await provider.retrieveById(pending.userId);
        // Disabled (or lost panel access) while the challenge was open: the pending login dies with it.
        if (user === null || !provider.accepts(user)) return expired(request, reply);

        const validated = await validateForm(
          request,
          reply,
          () => validate<{ code?: string; recovery_code?: string }>(request.body, challengeSchema, t),
          (state) => render(request, state),
        );
        if (!validated.ok) return validated.reply;
        const input = validated.value;
        const proof: Proof | null =
          input.code !== undefined
            ? { code: input.code }
            : input.recovery_code !== undefined
              ? { recoveryCode: input.recovery_code }
              : null;
        const field =
          proof !== null && 'recoveryCode' in proof
            ? 'recovery_code'
            : recoveryMode(request)
              ? 'recovery_code'
              : 'code';
        const refuse = async (message: string, status: number) => {
          const error = validationError({ [field]: [message] }, t);
          if (expectsJson(request))
            return reply.code(status).send({ message: error.summary, errors: error.errors });
          return sendPage(reply, await render(request, formState(formBody(request), error.errors)), status);
        };
        if (proof === null) {
          const attribute = t(field === 'code' ? 'two_factor.code' : 'two_factor.recovery_code');
          return refuse(t('validation.required', { attribute }), 422);
        }

        const audit = auditContext(request);
        const result = await auth.twoFactor.challenge(
          user,
          proof,
          { channel: options.guard, pendingId: pending.id },
          audit,
        );
        if (result.status === 'throttled') {
          reply.header('retry-after', String(result.retryAfterSeconds));
          return refuse(t('auth.throttle', { seconds: result.retryAfterSeconds }), 429);
        }
        if (result.status === 'invalid') return refuse(t(`two_factor.${field}_invalid`), 422);
        // The first step's method goes on the record too (a passkey or a provider; none for a password).
        const method =
          pending.proof === 'password'
            ? {}
            : { method: pending.proof, ...(pending.provider ? { provider: pending.provider } : {}) };
        await auth.recordLoginSucceeded(options.guard, user.id, { ...audit, actorId: user.id }, method);
        const left = result.recoveryCodesLeft;
        return completeLogin(request, reply, {
          guard: options.guard,
          user,
          remember: pending.remember,
          fallback: options.fallback,
          proof: pending.proof,
          ...(pending.provider ? { provider: pending.provider } : {}),
          secondFactor: true,
          // After a recovery code, the next page says how many are left (the owner's mail says it too).
          notice: left === undefined ? undefined : t('two_factor.recovery_login_left', { count: left }),
        });
      },
    );
  };
}
