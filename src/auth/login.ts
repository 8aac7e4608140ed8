import { type AuditContext, type AuditEvent, recordAudit } from '../audit/audit.ts';
import type { Db } from '../db/schema.ts';
import { hasConfirmedTwoFactor } from '../two-factor/two-factor.repository.ts';
import { normaliseEmail, toUser, type User } from '../users/user.ts';
import { findUserByEmail, updateUser } from '../users/users.repository.ts';
import type { UserProvider } from './guards.ts';
import type { PasswordHasher, PasswordMatch } from './passwords.ts';
import type { Limit, RateLimiter } from './rate-limiter.ts';

export interface LoginDeps {
  readonly db: Db;
  readonly hasher: PasswordHasher;
  readonly limiter: RateLimiter;
  readonly limit: Limit;
}

/** Which door the attempt came through: each has its own throttle and audit event names. */
export type LoginChannel = 'web' | 'api' | 'admin';

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
 * The per-account throttle's counter (e-mail + IP). Exported because every other password check of a
 * signed-in user (confirm-password, password change, account deletion) counts toward the same web
 * login count: otherwise a stolen session could guess the password through those forms unthrottled.
 */
export function loginThrottleKey(
  channel: LoginChannel,
  email: string,
  ip: string | null | undefined,
): string {
  return `login:${channel}:${email}|${ip ?? ''}`;
}

/**
 * Checks credentials after the form passed validation:
 * per-account throttle (e-mail + IP) → verify → provider check.
 *
 * - An attempt is reserved before verifying, so concurrent guesses cannot exceed the limit, and the
 *   6th attempt is refused even with the right password. Success clears the counter.
 * - Unknown e-mails verify against a dummy hash and refused accounts (disabled, no panel access) are
 *   refused only after a full verification, so timing and answer never tell them apart.
 */
export async function attemptLogin(
  deps: LoginDeps,
  provider: UserProvider,
  channel: LoginChannel,
  input: { email: string; password: string },
  audit: AuditContext,
): Promise<LoginResult> {
  const email = normaliseEmail(input.email);
  const key = loginThrottleKey(channel, email, audit.ip);
  const events = EVENTS[channel];
  const attempt = await deps.limiter.attempt(key, deps.limit);
  if (!attempt.allowed) {
    if (attempt.firstRefusal) {
      // The lockout names the account it protects (when there is one), so filtering the audit log by
      // that user shows it. Only the audit row differs: the answer is the same for every address.
      const locked = await findUserByEmail(deps.db, email);
      await recordAudit(deps.db, events.lockout, audit, locked?.id ?? null, { email, channel });
    }
    return { status: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
  }

  const row = await findUserByEmail(deps.db, email);
  let match: PasswordMatch = 'wrong';
  if (row === undefined) await deps.hasher.burn(input.password);
  else match = await deps.hasher.check(row.password, input.password);
  const user = row && match !== 'wrong' ? toUser(row) : null;

  if (user === null || !provider.accepts(user)) {
    await recordAudit(deps.db, events.failed, audit, row?.id ?? null, { email, channel });
    return { status: 'failed' };
  }

  await deps.limiter.clear(key);
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
  } else {
    await recordLoginSucceeded(deps.db, channel, user.id, audit);
  }
  return { status: 'ok', user, twoFactor };
}

/** The audit row of a completed login through `channel` (after the second factor, when there is one). */
export function recordLoginSucceeded(
  db: Db,
  channel: LoginChannel,
  userId: number,
  audit: AuditContext,
  details: Record<string, unknown> = {},
): Promise<void> {
  return recordAudit(db, EVENTS[channel].ok, { ...audit, actorId: userId }, userId, { channel, ...details });
}
