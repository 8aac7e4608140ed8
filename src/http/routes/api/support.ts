import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_GUARDS, API_GUARDS_WITH_OAUTH } from '../../../auth/auth.config.ts';
import { AuthenticationError, TooManyRequestsError, UnsupportedMediaTypeError } from '../../errors.ts';
import { isJsonContentType } from '../../negotiation.ts';

/** JSON endpoints refuse form and other bodies with 415; a request without any body is an empty form. */
export async function requireJson(request: FastifyRequest): Promise<void> {
  const hasBody = request.headers['content-type'] !== undefined || request.body !== undefined;
  if (hasBody && !isJsonContentType(request)) throw new UnsupportedMediaTypeError();
}

/**
 * The general API limit (API_RATE_LIMIT per minute, 0 = off), per user when authenticated, else per IP
 * — so one client cannot exhaust another's allowance with forged token ids.
 */
export function apiThrottle(app: FastifyInstance) {
  const { limiter, config, auth } = app.services;
  const limit = { max: config.apiRateLimitPerMinute, windowSeconds: 60 };
  if (limit.max === 0) return null;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.identity ? `api:user:${request.identity.user.id}` : `api:ip:${request.ip}`;
    const attempt = await limiter.attempt(key, limit);
    reply.header('x-ratelimit-limit', limit.max);
    if (!attempt.allowed) {
      // In front of POST /api/tokens: a login attempt all the same, counted once as throttled (docs/guides/webhooks.md).
      const { loginGuard } = request.routeOptions.config;
      if (loginGuard !== undefined) auth.countRefusedLogin(loginGuard);
      reply.header('x-ratelimit-remaining', 0);
      throw new TooManyRequestsError(attempt.retryAfterSeconds);
    }
    reply.header('x-ratelimit-remaining', attempt.remaining);
  };
}

/**
 * The preHandler of a protected API route: authenticate with API_GUARDS (401, or 403 for a missing
 * ability), then the general API limit. Like Laravel's throttle:api running before auth:sanctum, a
 * request that fails to authenticate is counted against its IP, so guessing tokens is throttled too.
 */
export function apiAuth(app: FastifyInstance, options: { ability?: string; oauth?: boolean } = {}) {
  const authenticate = app.requireAuth(options.oauth ? API_GUARDS_WITH_OAUTH : API_GUARDS, options);
  const throttle = apiThrottle(app);
  return async function apiAuthenticate(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    try {
      await authenticate.call(this, request, reply);
    } catch (error) {
      // A 429 from the throttle replaces the 401 once the IP's allowance is spent.
      if (throttle && error instanceof AuthenticationError) await throttle(request, reply);
      throw error;
    }
    if (throttle) await throttle(request, reply);
  };
}
