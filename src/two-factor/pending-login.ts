import { MINUTE } from '../lib/clock.ts';
import { randomToken } from '../lib/crypto.ts';

/**
 * A login whose password was right but whose second factor is still owed. It lives in the browser's
 * own (server-side) session under PENDING_LOGIN_KEY, so it is bound to this browser, is seen by every
 * instance sharing the database, and is never an authenticated session: guards read `user_id` of the
 * session row, which stays null until the challenge is passed.
 */
export interface PendingLogin {
  /** Random: the per-pending-login throttle key (a new password login gets a new one). */
  readonly id: string;
  readonly userId: number;
  readonly remember: boolean;
  readonly expiresAt: number;
}

export const PENDING_LOGIN_KEY = 'two_factor_login';
export const PENDING_LOGIN_TTL_MS = 5 * MINUTE;

export function newPendingLogin(userId: number, remember: boolean, now: number): PendingLogin {
  return { id: randomToken(16), userId, remember, expiresAt: now + PENDING_LOGIN_TTL_MS };
}

/** The pending login stored in a session, or null when there is none, it is malformed or it expired. */
export function livePendingLogin(stored: unknown, now: number): PendingLogin | null {
  if (stored === null || typeof stored !== 'object') return null;
  const { id, userId, remember, expiresAt } = stored as Record<string, unknown>;
  if (typeof id !== 'string' || typeof userId !== 'number' || typeof expiresAt !== 'number') return null;
  if (expiresAt <= now) return null;
  return { id, userId, remember: remember === true, expiresAt };
}
