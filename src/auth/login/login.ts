import { type AuditContext, type AuditEvent, recordAudit } from '../../audit/audit.ts';
import type { Db } from '../../db/schema.ts';
import { hasConfirmedTwoFactor } from '../../two-factor/two-factor.repository.ts';
import { normaliseEmail, toUser, type User } from '../../users/user.ts';
import { findUserByEmail, updateUser } from '../../users/users.repository.ts';
import type { UserProvider } from '../guards/guards.ts';
import { deleteResetTokens } from '../password-reset/password-resets.repository.ts';
import { HashQueueFullError, type PasswordHasher, type PasswordMatch } from '../passwords/passwords.ts';
import {
  type LoginThrottle,
  type Reservation,
  releaseUncheckedAttempt,
  reserveAccountAttempt,
  reserveClientAttempt,
  settleFailedLogin,
  settleSuccessfulLogin,
} from '../throttle/login-throttle.ts';
import type { DeviceCookies } from './device-cookies.ts';

export interface LoginDeps {
  readonly db: Db;
  readonly hasher: PasswordHasher;
  /** The per-e-mail+IP and per-account counts (login-throttle.ts). */
  readonly throttle: LoginThrottle;
  /** Verifies the browser's device cookie (device-cookies.ts). */
  readonly devices: DeviceCookies;
}

export interface LoginOptions {
  /**
   * The caller completes the login with recordLoginSucceeded itself, in the transaction that writes
   * what the login was for (token-login.ts: the audit row and the new token in one commit, one write
   * to the database instead of two on the path that the hash rate bounds).
   */
  readonly callerRecordsSuccess?: boolean;
}

/** Which door the attempt came through: each has its own audit event names (the throttle is shared). */
export type LoginChannel = 'web' | 'api' | 'admin';

export interface LoginInput {
  readonly email: string;
  readonly password: string;
  /** The browser's gatehouse_device cookie (web and admin forms; API clients have none). */
  readonly deviceCookie?: string;
}

export type LoginResult =
  /**
   * The password was right. `twoFactor`: the user has two-factor on, so the login is not complete
   * until the challenge is passed (then recordLoginSucceeded runs); no session may be started yet.
   */
  | { readonly status: 'ok'; readonly user: User; readonly twoFactor: boolean }
  | { readonly status: 'failed' }
  | { readonly status: 'throttled'; readonly retryAfterSeconds: number };

const EVENTS: Record<LoginChannel, { ok: AuditEvent; failed: AuditEvent; lockout: AuditEvent }> = {
  web: { ok: 'login.succeeded', failed: 'login.failed', lockout: 'login.lockout' },
  api: { ok: 'login.succeeded', failed: 'login.failed', lockout: 'login.lockout' },
  admin: { ok: 'admin.login.succeeded', failed: 'admin.login.failed', lockout: 'admin.login.lockout' },
};

/**
 * Checks credentials after the form passed validation (docs/guides/api-tokens.md, docs/guides/sessions-and-spas.md, docs/security.md):
 * hash queue → per-e-mail+IP throttle → per-account limit (unless the browser's device cookie names
 * the account) → verify → provider check.
 *
 * - Attempts are reserved before verifying, so concurrent guesses cannot exceed either limit, and the
 *   6th attempt is refused even with the right password. Success clears the e-mail+IP count.
 * - Unknown e-mails are counted like known ones, verify against a dummy hash, and refused accounts
 *   (disabled, no panel access) are refused only after a full verification, so timing and answer
 *   never tell them apart.
 */
export async function attemptLogin(
  deps: LoginDeps,
  provider: UserProvider,
  channel: LoginChannel,
  input: LoginInput,
  audit: AuditContext,
  options: LoginOptions = {},
): Promise<LoginResult> {
  // Before any count is taken: a check refused for load (503) is no failed attempt of the user's.
  if (deps.hasher.saturated()) throw new HashQueueFullError();
  const email = normaliseEmail(input.email);
  const events = EVENTS[channel];
  const lockedOut = async (refused: Reservation & { allowed: false }, userId: number | null) => {
    // The lockout names the account it protects (when there is one), so filtering the audit log by
    // that user shows it. Only the audit row differs: the answer is the same for every address.
    if (refused.firstRefusal) {
      const id = userId ?? (await findUserByEmail(deps.db, email))?.id ?? null;
      await recordAudit(deps.db, events.lockout, audit, id, { email, channel, scope: refused.scope });
    }
    return { status: 'throttled', retryAfterSeconds: refused.retryAfterSeconds } as const;
  };

  const client = await reserveClientAttempt(deps.throttle, email, audit.ip);
  if (!client.allowed) return lockedOut(client, null);

  const row = await findUserByEmail(deps.db, email);
  // A browser that logged into this account before is outside the per-account limit: a sprayer on
  // many addresses can drive that count up, but cannot lock the owner's own browser out with it.
  const knownDevice = row !== undefined && deps.devices.names(input.deviceCookie, row.id, audit.now);
  if (!knownDevice) {
    const account = await reserveAccountAttempt(deps.throttle, email);
    if (!account.allowed) return lockedOut(account, row?.id ?? null);
  }

  let match: PasswordMatch = 'wrong';
  try {
    if (row === undefined) await deps.hasher.burn(input.password);
    else match = await deps.hasher.check(row.password, input.password);
  } catch (error) {
    // The queue filled while the counts were taken: the 503 is no attempt (login-throttle.ts).
    if (error instanceof HashQueueFullError)
      await releaseUncheckedAttempt(deps.throttle, email, audit.ip, !knownDevice);
    throw error;
  }
  const user = row && match !== 'wrong' ? toUser(row) : null;

  if (user === null || !provider.accepts(user)) {
    await settleFailedLogin(deps.throttle, email, audit.ip, !knownDevice);
    await recordAudit(deps.db, events.failed, audit, row?.id ?? null, { email, channel });
    return { status: 'failed' };
  }

  await settleSuccessfulLogin(deps.throttle, email, audit.ip, !knownDevice);
  if (match === 'rehash') {
    // An imported bcrypt or argon2i hash, argon2id below the configured cost, or a hash of the
    // un-normalised password: upgrade it now that we hold the plaintext (never to anything weaker:
    // password-strength.ts).
    await updateUser(deps.db, user.id, { password: await deps.hasher.rehash(row!.password, input.password) });
  }
  const twoFactor = await hasConfirmedTwoFactor(deps.db, user.id);
  // With two-factor on, the password alone is not a login: the audit trail (and the webhooks and
  // metrics derived from it) hears of the login only once the second factor is passed.
  if (twoFactor) {
    await recordAudit(deps.db, 'login.two_factor_challenged', { ...audit, actorId: user.id }, user.id, {
      channel,
    });
  } else if (!options.callerRecordsSuccess) {
    await recordLoginSucceeded(deps.db, channel, user.id, audit);
  }
  return { status: 'ok', user, twoFactor };
}

/**
 * A login through `channel` is complete (after the second factor, when there is one; passkeys too):
 * its audit row, and the user's unused reset token is deleted — whoever logs in knows the password,
 * and a forgotten link left in a mailbox must not stay a way into the account (docs/security.md).
 */
export async function recordLoginSucceeded(
  db: Db,
  channel: LoginChannel,
  userId: number,
  audit: AuditContext,
  details: Record<string, unknown> = {},
): Promise<void> {
  await deleteResetTokens(db, userId);
  await recordAudit(db, EVENTS[channel].ok, { ...audit, actorId: userId }, userId, { channel, ...details });
}
