import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TooManyRequestsError, UnsupportedMediaTypeError } from '../../errors.ts';
import { isJsonContentType } from '../../negotiation.ts';

/**
 * Guards that may authenticate an API request, in order. (The SPA issue prepends the stateful
 * session guard here; nothing else changes.)
 */
export const API_GUARDS: readonly string[] = ['api'];

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
  const { limiter, config } = app.services;
  const limit = { max: config.apiRateLimitPerMinute, windowSeconds: 60 };
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (limit.max === 0) return;
    const key = request.identity ? `api:user:${request.identity.user.id}` : `api:ip:${request.ip}`;
    const attempt = await limiter.attempt(key, limit);
    reply.header('x-ratelimit-limit', limit.max);
    if (!attempt.allowed) {
      reply.header('x-ratelimit-remaining', 0);
      throw new TooManyRequestsError(attempt.retryAfterSeconds);
    }
    reply.header('x-ratelimit-remaining', attempt.remaining);
  };
}

export function auditContext(request: FastifyRequest) {
  return {
    ip: request.ip,
    now: request.server.services.clock.now(),
    actorId: request.identity?.user.id ?? null,
  };
}
