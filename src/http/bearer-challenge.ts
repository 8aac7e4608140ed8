import type { FastifyRequest } from 'fastify';

/** RFC 6750 §3.1 error codes Gatehouse sends. */
export type BearerError = 'invalid_token' | 'insufficient_scope';

/**
 * The `WWW-Authenticate` value of every Bearer challenge (docs/reference/errors.md, docs/security.md): `Bearer realm="<APP_NAME>"`,
 * plus `error="…"` when a token was sent and refused. One place, so the API, forward auth and the
 * metrics endpoint all name the same realm. APP_NAME is free text: it is made a valid quoted-string
 * (no `"` or `\` unescaped, nothing outside printable ASCII, which a header could not carry anyway).
 */
export function bearerChallenge(appName: string, error?: BearerError): string {
  const realm = appName.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&');
  return error === undefined ? `Bearer realm="${realm}"` : `Bearer realm="${realm}", error="${error}"`;
}

/**
 * The challenge for a request that did not authenticate: `error="invalid_token"` only when a Bearer
 * credential was presented; other schemes (Basic, …) are "no authentication information" and get
 * the bare challenge (RFC 6750 §3.1).
 */
export function unauthenticatedChallenge(request: FastifyRequest): string {
  const sent = /^\s*bearer\b/i.test(request.headers.authorization ?? '');
  return bearerChallenge(request.server.services.config.appName, sent ? 'invalid_token' : undefined);
}
