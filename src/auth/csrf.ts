import { createHmac } from 'node:crypto';
import { safeEqual } from '../lib/crypto.ts';

/**
 * CSRF tokens are HMAC(APP_KEY, guard + session id): bound to one session (a new id at login means a
 * new token), verifiable without storage, and useless to anyone who cannot read the session cookie.
 */
export function csrfTokenFor(appKey: Buffer, guard: string, sessionId: string): string {
  return createHmac('sha256', appKey).update(`csrf:${guard}:${sessionId}`).digest('base64url');
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
