import type { FastifyRequest } from 'fastify';

/**
 * What passkey challenges are bound to (docs/guides/passkeys.md): this browser's web session. Registration (the
 * account area) and sign-in (the web area) both ask here, so both bind the same way.
 */
export function passkeyBinding(request: FastifyRequest): string {
  return request.sessionOf('web').binding('passkey-challenge');
}
