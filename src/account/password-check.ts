import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { DeviceCookies } from '../auth/login/device-cookies.ts';
import { HashQueueFullError, type PasswordHasher } from '../auth/passwords/passwords.ts';
import {
  type LoginThrottle,
  type Reservation,
  releaseUncheckedAttempt,
  reserveAccountAttempt,
  reserveClientAttempt,
  settleFailedLogin,
  settleSuccessfulLogin,
} from '../auth/throttle/login-throttle.ts';
import type { Db } from '../db/schema.ts';
import { field, rules } from '../lib/validation.ts';
import { hasPassword } from '../users/user.ts';
import { findUserById } from '../users/users.repository.ts';

/** The body of every form that re-checks the signed-in user's password. */
export const passwordCheckSchema = { password: field.required(rules.string(), rules.max(4096)) };

export interface PasswordCheckDeps {
  readonly db: Db;
  readonly hasher: PasswordHasher;
  /** The logins' per-e-mail+IP and per-account counts (auth/throttle/login-throttle.ts). */
  readonly throttle: LoginThrottle;
  /** Verifies the browser's device cookie (auth/login/device-cookies.ts). */
  readonly devices: DeviceCookies;
}

/** Who asks: the audit context, and the browser's gatehouse_device cookie when it sent one. */
export interface PasswordCheckContext extends AuditContext {
  readonly deviceCookie?: string;
}

export type PasswordCheck =
  | { readonly status: 'ok' }
  | { readonly status: 'failed' }
  /** The account has no password (made by a provider sign-in, docs/guides/login-providers.md). */
  | { readonly status: 'no_password' }
  | { readonly status: 'throttled'; readonly retryAfterSeconds: number };

/** The account's password check bound to one purpose (account.service.ts binds it per form). */
export type CheckPassword = (
  userId: number,
  password: string,
  audit: PasswordCheckContext,
) => Promise<PasswordCheck>;

/** Which form asked: kept in the audit row of a failure, so the log says where the guessing happened. */
export type PasswordCheckPurpose = 'confirm' | 'change' | 'other_sessions' | 'delete' | 'admin_action';

/**
 * Checks the signed-in user's own password (confirm-password, password change, "log out other
 * browsers", account deletion, the panel's destructive actions). Every such check counts as a login
 * attempt does (docs/security.md "Every password check counts"): toward the per-e-mail+IP count shared
 * with POST /login, /admin/login and /api/tokens, and toward ACCOUNT_MAX_FAILURES unless the browser's
 * device cookie names the account. Otherwise a stolen session cookie, used from many addresses, would
 * turn these forms into a password oracle held only to five tries per address. Attempts are reserved
 * before the hash is verified, so concurrent guesses cannot exceed either limit; success settles the
 * counts as a successful login does.
 */
export async function checkOwnPassword(
  deps: PasswordCheckDeps,
  userId: number,
  password: string,
  purpose: PasswordCheckPurpose,
  context: PasswordCheckContext,
): Promise<PasswordCheck> {
  // As at login (auth/login/login.ts): a check refused for load (503) takes no attempt from the user's count.
  if (deps.hasher.saturated()) throw new HashQueueFullError();
  const row = await findUserById(deps.db, userId);
  if (row === undefined) return { status: 'failed' };
  // Said as it is, and no attempt counted: with no password there is nothing to guess, and the signed-in
  // user learns only what the account page already shows them ("Your account has no password").
  if (!hasPassword(row.password)) return { status: 'no_password' };
  const lockedOut = async (refused: Reservation & { allowed: false }) => {
    if (refused.firstRefusal) {
      await recordAudit(deps.db, 'login.lockout', context, userId, {
        email: row.email,
        channel: 'web',
        scope: refused.scope,
        purpose,
      });
    }
    return { status: 'throttled', retryAfterSeconds: refused.retryAfterSeconds } as const;
  };
  const client = await reserveClientAttempt(deps.throttle, row.email, context.ip);
  if (!client.allowed) return lockedOut(client);
  const knownDevice = deps.devices.names(context.deviceCookie, userId, context.now);
  if (!knownDevice) {
    const account = await reserveAccountAttempt(deps.throttle, row.email);
    if (!account.allowed) return lockedOut(account);
  }
  let verified: boolean;
  try {
    verified = await deps.hasher.verify(row.password, password);
  } catch (error) {
    // The queue filled while the counts were taken: the 503 is no attempt (auth/throttle/login-throttle.ts).
    if (error instanceof HashQueueFullError)
      await releaseUncheckedAttempt(deps.throttle, row.email, context.ip, !knownDevice);
    throw error;
  }
  if (!verified) {
    await settleFailedLogin(deps.throttle, row.email, context.ip, !knownDevice);
    await recordAudit(deps.db, 'user.password_check_failed', context, userId, { purpose });
    return { status: 'failed' };
  }
  await settleSuccessfulLogin(deps.throttle, row.email, context.ip, !knownDevice);
  return { status: 'ok' };
}
