import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { HashQueueFullError, type PasswordHasher } from '../auth/passwords/passwords.ts';
import { loginThrottleKey } from '../auth/throttle/login-throttle.ts';
import type { Limit, RateLimiter } from '../auth/throttle/rate-limiter.ts';
import type { Db } from '../db/schema.ts';
import { field, rules } from '../lib/validation.ts';
import { findUserById } from '../users/users.repository.ts';

/** The body of every form that re-checks the signed-in user's password. */
export const passwordCheckSchema = { password: field.required(rules.string(), rules.max(4096)) };

export interface PasswordCheckDeps {
  readonly db: Db;
  readonly hasher: PasswordHasher;
  readonly limiter: RateLimiter;
  /** The web login's limit (LOGIN_MAX_ATTEMPTS per LOGIN_DECAY_SECONDS). */
  readonly limit: Limit;
}

export type PasswordCheck =
  | { readonly status: 'ok' }
  | { readonly status: 'failed' }
  | { readonly status: 'throttled'; readonly retryAfterSeconds: number };

/** Which form asked: kept in the audit row of a failure, so the log says where the guessing happened. */
export type PasswordCheckPurpose = 'confirm' | 'change' | 'other_sessions' | 'delete';

/**
 * Checks the signed-in user's own password (confirm-password, password change, "log out other
 * browsers", account deletion). Every such check counts toward the login throttle of that e-mail
 * and IP (the one counter of POST /login, /admin/login and /api/tokens): a stolen session cookie must not turn these forms into an
 * unthrottled password oracle. An attempt is reserved before the hash is verified, so concurrent
 * guesses cannot exceed the limit; success clears the count, as a successful login does.
 */
export async function checkOwnPassword(
  deps: PasswordCheckDeps,
  userId: number,
  password: string,
  purpose: PasswordCheckPurpose,
  audit: AuditContext,
): Promise<PasswordCheck> {
  // As at login (auth/login.ts): a check refused for load (503) takes no attempt from the user's count.
  if (deps.hasher.saturated()) throw new HashQueueFullError();
  const row = await findUserById(deps.db, userId);
  if (row === undefined) return { status: 'failed' };
  const key = loginThrottleKey(row.email, audit.ip);
  const attempt = await deps.limiter.attempt(key, deps.limit);
  if (!attempt.allowed) {
    if (attempt.firstRefusal) {
      await recordAudit(deps.db, 'login.lockout', audit, userId, {
        email: row.email,
        channel: 'web',
        purpose,
      });
    }
    return { status: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
  }
  let verified: boolean;
  try {
    verified = await deps.hasher.verify(row.password, password);
  } catch (error) {
    // The queue filled while the count was taken: the 503 is no attempt (auth/login-throttle.ts).
    if (error instanceof HashQueueFullError) await deps.limiter.release(key);
    throw error;
  }
  if (!verified) {
    await recordAudit(deps.db, 'user.password_check_failed', audit, userId, { purpose });
    return { status: 'failed' };
  }
  await deps.limiter.clear(key);
  return { status: 'ok' };
}
