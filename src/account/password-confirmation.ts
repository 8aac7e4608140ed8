import { recordAudit } from '../audit/audit.ts';
import {
  checkOwnPassword,
  type PasswordCheck,
  type PasswordCheckContext,
  type PasswordCheckDeps,
} from './password-check.ts';

/**
 * Password confirmation (Laravel's `password.confirm` middleware): some actions (export, two-factor
 * and passkey management) need proof that the person at the keyboard knows the password *now*, not
 * only a session that may have been left open. Only POST /user/confirm-password records it; a fresh
 * login or registration does not count (as in Laravel), so a stolen remember-me cookie, which logs a
 * browser in without a password, never unlocks these actions.
 */

/** The session key holding the time (ms) of the last successful confirmation; Laravel's name. */
export const PASSWORD_CONFIRMED_AT = 'auth.password_confirmed_at';

/** Whether a confirmation made at `confirmedAt` still holds at `now`, for PASSWORD_TIMEOUT seconds. */
export function isPasswordConfirmed(confirmedAt: unknown, now: number, timeoutSeconds: number): boolean {
  return (
    typeof confirmedAt === 'number' &&
    Number.isFinite(confirmedAt) &&
    confirmedAt <= now &&
    now - confirmedAt < timeoutSeconds * 1000
  );
}

/**
 * POST /user/confirm-password: the password check (counted like a login attempt) and, on success,
 * an audit row; the caller then stamps the session (http/password-confirmation.ts).
 */
export async function confirmPassword(
  deps: PasswordCheckDeps,
  userId: number,
  password: string,
  audit: PasswordCheckContext,
): Promise<PasswordCheck> {
  const check = await checkOwnPassword(deps, userId, password, 'confirm', audit);
  if (check.status === 'ok') await recordAudit(deps.db, 'user.password_confirmed', audit, userId);
  return check;
}
