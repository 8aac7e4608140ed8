import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { TooManyRequestsError } from '../errors.ts';
import { expectsJson } from '../negotiation.ts';
import { resendThrottledForm, throttledFormOf } from '../throttled-form.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The per-IP authentication budget (docs/security.md): the preHandler of EVERY route that checks a
     * password, a code or a passkey. All of them draw on one count per client IP, so an attacker
     * cannot spread guesses over doors; it runs before the handler, i.e. before any hash is computed.
     */
    authBudget: preHandlerAsyncHookHandler;
  }
  interface FastifyContextConfig {
    /**
     * On a login route (the password forms, the two-factor challenges, POST /api/tokens, the passkey
     * login): its guard, so an attempt the per-IP budget refuses is still counted as one login attempt
     * (gatehouse_logins_total{result="throttled"}).
     */
    loginGuard?: string;
  }
}

const WINDOW_SECONDS = 60;

/**
 * IP_AUTH_LIMIT requests per minute per client IP (0 = off), counted on the shared rate-limit store
 * (Redis when configured: every instance draws on the same budget). Every request counts, not only
 * failures: the point is to bound the argon2 work one address can ask for, and a correct password
 * costs a hash as much as a wrong one. The per-e-mail throttle of docs/guides/api-tokens.md/docs/guides/sessions-and-spas.md stays, behind this one.
 */
export const authBudgetPlugin = fp(
  async (app) => {
    const { limiter, config, auth } = app.services;
    const limit = { max: config.ipAuthLimit, windowSeconds: WINDOW_SECONDS };
    app.decorate('authBudget', async function authBudget(request: FastifyRequest, reply: FastifyReply) {
      if (limit.max === 0) return;
      const attempt = await limiter.attempt(`auth-ip:${request.ip}`, limit);
      if (attempt.allowed) return;
      const { loginGuard } = request.routeOptions.config;
      if (loginGuard !== undefined) auth.countRefusedLogin(loginGuard);
      const seconds = attempt.retryAfterSeconds;
      // JSON clients get docs/reference/errors.md's generic text; a form gets its own throttle text, which
      // says how long, on the form itself with what was typed (http/throttled-form.ts).
      if (expectsJson(request)) throw new TooManyRequestsError(seconds);
      const messageKey = throttledFormOf(request)?.message ?? 'http.too_many_attempts';
      reply.header('retry-after', String(seconds));
      const shown = await resendThrottledForm(request, reply, 429, request.t(messageKey, { seconds }));
      if (shown !== null) return shown;
      throw new TooManyRequestsError(seconds, messageKey, { seconds });
    });
  },
  { name: 'gatehouse-auth-budget' },
);
