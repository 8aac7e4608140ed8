import { createHmac } from 'node:crypto';
import { safeEqual } from '../../lib/crypto.ts';
import type { Session } from './sessions.ts';

/**
 * CSRF tokens are HMAC(APP_KEY, guard + session id): bound to one session (a new id at login means a
 * new token), verifiable without storage, and useless to anyone who cannot read the session cookie.
 */
export function csrfTokenFor(appKey: Buffer, guard: string, sessionId: string): string {
  return createHmac('sha256', appKey).update(`csrf:${guard}:${sessionId}`).digest('base64url');
}

/**
 * Tokens of kept sessions (services.ts keeps one frozen Session per key between requests): the HMAC is
 * computed once per session, not once per page.
 */
const keptTokens = new WeakMap<Session, string>();

/**
 * csrfTokenFor, remembered with `stored` when the browser has a row. Sound only because the caller
 * passes the row found or created under `sessionId` (a row's key is the hash of its cookie id), so a
 * token kept with it belongs to this id.
 */
export function sessionCsrfToken(
  appKey: Buffer,
  guard: string,
  sessionId: string,
  stored: Session | null,
): string {
  let token = stored === null ? undefined : keptTokens.get(stored);
  if (token === undefined) {
    token = csrfTokenFor(appKey, guard, sessionId);
    if (stored !== null) keptTokens.set(stored, token);
  }
  return token;
}

export function csrfTokenMatches(
  appKey: Buffer,
  guard: string,
  sessionId: string,
  presented: unknown,
): boolean {
  return typeof presented === 'string' && presented.length > 0 && presented.length < 200
    ? safeEqual(presented, csrfTokenFor(appKey, guard, sessionId))
    : false;
}
