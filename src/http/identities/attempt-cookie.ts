import type { FastifyReply, FastifyRequest } from 'fastify';
import { ATTEMPT_TTL_MS } from '../../identities/attempt.ts';

/**
 * The cookie a sign-in at a provider travels in between /auth/{provider} and its callback
 * (identities/attempt.ts seals it): HttpOnly, SameSite=Lax (the provider's redirect back is a top-level
 * navigation, which Lax lets through), 10 minutes, `__Host-` and Secure under an https APP_URL.
 */
function cookieName(request: FastifyRequest): string {
  return request.server.services.config.secureCookies ? '__Host-gatehouse_upstream' : 'gatehouse_upstream';
}

function options(request: FastifyRequest) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.server.services.config.secureCookies,
  };
}

export function setAttemptCookie(request: FastifyRequest, reply: FastifyReply, sealed: string): void {
  reply.setCookie(cookieName(request), sealed, { ...options(request), maxAge: ATTEMPT_TTL_MS / 1000 });
}

/** The attempt this browser carries, spent: the cookie is cleared whatever the callback's outcome. */
export function takeAttemptCookie(request: FastifyRequest, reply: FastifyReply): string | undefined {
  const name = cookieName(request);
  const sealed = request.cookies[name];
  if (sealed !== undefined) reply.clearCookie(name, options(request));
  return sealed;
}
