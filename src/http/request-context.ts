import type { FastifyRequest } from 'fastify';
import type { PasswordCheckContext } from '../account/password-check.ts';
import type { AuditContext } from '../audit/audit.ts';
import { DEVICE_COOKIE } from '../auth/login/device-cookies.ts';

/** Who is acting, from where, and when: what every use case that writes an audit row is given. */
export function auditContext(request: FastifyRequest): AuditContext {
  const { clock, webhooks } = request.server.services;
  return {
    ip: request.ip,
    now: clock.now(),
    actorId: request.identity?.user.id ?? null,
    webhooks: webhooks.sink,
  };
}

/**
 * auditContext plus the browser's device cookie, for the signed-in user's own password checks: they
 * count as logins do, and the owner's browser is outside the per-account limit (docs/security.md).
 */
export function passwordCheckContext(request: FastifyRequest): PasswordCheckContext {
  return { ...auditContext(request), deviceCookie: request.cookies[DEVICE_COOKIE] };
}

/** The parsed form or JSON body as a record; anything else (no body, an array) is empty. */
export function formBody(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** One query-string parameter as printable, trimmed text (at most 255 characters); '' when absent. */
export function queryString(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  // Control characters cannot be in any stored name or address (validation refuses them), and a NUL
  // would make PostgreSQL reject the whole query (a 500): they are dropped from search input.
  if (typeof value !== 'string') return '';
  const printable = value.replace(/\p{Cc}/gu, '');
  return printable.trim().slice(0, 255);
}

/** A local path to continue to after login, never another site (no "//host", "/\\host" or schemes). */
export function safeLocalPath(value: unknown, fallback: string): string {
  if (
    typeof value !== 'string' ||
    !value.startsWith('/') ||
    value.startsWith('//') ||
    value.startsWith('/\\')
  ) {
    return fallback;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  return /[\u0000-\u001f\u007f\\]/.test(value) ? fallback : value;
}

/** The local path of the Referer when it is a page of this site (the page a form was on), else null. */
export function sameSiteReferer(request: FastifyRequest): string | null {
  const referer = request.headers.referer;
  if (typeof referer !== 'string' || referer.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return null;
  }
  if (url.host !== request.host) return null;
  const path = safeLocalPath(url.pathname + url.search, '');
  return path === '' ? null : path;
}
