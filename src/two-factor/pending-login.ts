import type { LoginProof } from '../auth/login/login-method.ts';
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
  /** What proved the user at the first step, and the provider of a `provider` proof. */
  readonly proof: LoginProof;
  readonly provider?: string;
}

export const PENDING_LOGIN_KEY = 'two_factor_login';
export const PENDING_LOGIN_TTL_MS = 5 * MINUTE;

export function newPendingLogin(
  userId: number,
  remember: boolean,
  now: number,
  first: { proof: LoginProof; provider?: string } = { proof: 'password' },
): PendingLogin {
  return { id: randomToken(16), userId, remember, expiresAt: now + PENDING_LOGIN_TTL_MS, ...first };
}

/** The pending login stored in a session, or null when there is none, it is malformed or it expired. */
export function livePendingLogin(stored: unknown, now: number): PendingLogin | null {
  if (stored === null || typeof stored !== 'object') return null;
  const { id, userId, remember, expiresAt, proof, provider } = stored as Record<string, unknown>;
  if (typeof id !== 'string' || typeof userId !== 'number' || typeof expiresAt !== 'number') return null;
  if (expiresAt <= now) return null;
  // A pending login stored before the proof was kept came from the password form.
  const first = proof === 'passkey' || proof === 'provider' ? proof : 'password';
  return {
    id,
    userId,
    remember: remember === true,
    expiresAt,
    proof: first,
    ...(first === 'provider' && typeof provider === 'string' ? { provider } : {}),
  };
}
