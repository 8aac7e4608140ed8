import type { Limit, RateLimiter } from './rate-limiter.ts';

/** The per-account window of docs/security.md: failures from any IPs within 15 minutes. */
export const ACCOUNT_WINDOW_SECONDS = 15 * 60;

export interface LoginThrottle {
  readonly limiter: RateLimiter;
  /** Per lower-cased e-mail + IP (LOGIN_MAX_ATTEMPTS per LOGIN_DECAY_SECONDS, docs/guides/api-tokens.md, docs/guides/sessions-and-spas.md). */
  readonly perClient: Limit;
  /** Per e-mail from any IP (ACCOUNT_MAX_FAILURES per 15 minutes, docs/security.md). */
  readonly perAccount: Limit;
}

/**
 * The per-e-mail+IP counter. ONE count for the three login doors (/login, /api/tokens, /admin/login)
 * and for the signed-in user's own password checks (confirm-password, password change, deletion): a
 * guesser who switched doors, or used a stolen session's forms, would otherwise get five tries per door.
 */
export function loginThrottleKey(email: string, ip: string | null | undefined): string {
  return `login:${email}|${ip ?? ''}`;
}

/** The per-account counter: the e-mail alone, whether or not an account has it (no enumeration). */
export function accountThrottleKey(email: string): string {
  return `login-account:${email}`;
}

export type Reservation =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly retryAfterSeconds: number;
      /** True once per window, when the lockout starts (it is audited). */
      readonly firstRefusal: boolean;
      readonly scope: 'client' | 'account';
    };

/**
 * Reserves one attempt on the per-e-mail+IP count (a refusal there stops here, the account count is
 * not touched). Reserve-then-verify, so concurrent guesses cannot exceed either limit.
 */
export async function reserveClientAttempt(
  throttle: LoginThrottle,
  email: string,
  ip: string | null | undefined,
): Promise<Reservation> {
  const attempt = await throttle.limiter.reserve(loginThrottleKey(email, ip), throttle.perClient);
  return attempt.allowed ? { allowed: true } : { ...attempt, scope: 'client' };
}

/**
 * Reserves one attempt on the per-account count. Only clients without a device cookie for the account
 * call this (login.ts): the owner's browser is outside the limit a sprayer can drive up.
 */
export async function reserveAccountAttempt(throttle: LoginThrottle, email: string): Promise<Reservation> {
  const attempt = await throttle.limiter.reserve(accountThrottleKey(email), throttle.perAccount);
  return attempt.allowed ? { allowed: true } : { ...attempt, scope: 'account' };
}

/**
 * After a right password: the e-mail+IP count starts again (as Laravel's throttle does). The account
 * count keeps the failures — a success of the owner must not hand a sprayer a fresh budget — and only
 * this attempt's own reservation is given back, so a script logging in correctly is never locked.
 */
export async function settleSuccessfulLogin(
  throttle: LoginThrottle,
  email: string,
  ip: string | null | undefined,
  accountReserved: boolean,
): Promise<void> {
  await throttle.limiter.clear(loginThrottleKey(email, ip));
  if (accountReserved) await throttle.limiter.release(accountThrottleKey(email));
}

/**
 * After a rejected password (or a refused account): the reservations stay and count as failures, which
 * is what refuses further attempts once the limits are full (rate-limiter.ts reserve).
 */
export async function settleFailedLogin(
  throttle: LoginThrottle,
  email: string,
  ip: string | null | undefined,
  accountReserved: boolean,
): Promise<void> {
  await throttle.limiter.failed(loginThrottleKey(email, ip), throttle.perClient);
  if (accountReserved) await throttle.limiter.failed(accountThrottleKey(email), throttle.perAccount);
}

/**
 * The hash queue filled up (HASH_QUEUE_MAX) while this attempt waited for its counts: it is answered
 * 503 without a password check, so it is no attempt of the user's and both reservations are given
 * back. Otherwise a flood would spend a real user's tries with answers that never looked at the password.
 */
export async function releaseUncheckedAttempt(
  throttle: LoginThrottle,
  email: string,
  ip: string | null | undefined,
  accountReserved: boolean,
): Promise<void> {
  await throttle.limiter.release(loginThrottleKey(email, ip));
  if (accountReserved) await throttle.limiter.release(accountThrottleKey(email));
}

/**
 * A successful password reset proves the mailbox and sets a password the guesser does not know: the
 * account's count and the resetting client's count are cleared, so the user is not told to wait
 * before using the new password. (Other addresses' e-mail+IP counts run out on their own within a
 * minute; the store hashes its keys, so they cannot be listed.)
 */
export async function clearLoginFailures(
  throttle: LoginThrottle,
  email: string,
  ip: string | null | undefined,
): Promise<void> {
  await throttle.limiter.clear(accountThrottleKey(email));
  await throttle.limiter.clear(loginThrottleKey(email, ip));
}
