import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../../audit/audit.ts';
import type { Database } from '../../db/schema.ts';
import { MINUTE } from '../../lib/clock.ts';
import { randomToken, safeEqual, sha256Hex } from '../../lib/crypto.ts';
import { type Failure, field, rules } from '../../lib/validation.ts';
import type { Mailing } from '../../mail/mailing.ts';
import { passwordChangedMessage, recipientFor, resetPasswordMessage } from '../../mail/messages.ts';
import { endProviderSessionsOf } from '../../oauth/provider-sessions.ts';
import { normaliseEmail, toUser, type User } from '../../users/user.ts';
import { findUserByEmail, updateUser } from '../../users/users.repository.ts';
import type { UserRow } from '../../users/users.table.ts';
import { newPasswordField, personalPasswordFailure } from '../passwords/password-policy.ts';
import type { PasswordHasher } from '../passwords/passwords.ts';
import { revokeRememberTokens } from '../remember-me/remember-me.ts';
import { destroyUserSessions } from '../sessions/sessions.ts';
import { clearLoginFailures, type LoginThrottle } from '../throttle/login-throttle.ts';
import { revokeAccessTokens } from '../tokens/access-tokens.ts';
import { consumeResetToken, findResetToken, storeResetToken } from './password-resets.repository.ts';

export interface PasswordResetDeps {
  readonly db: Kysely<Database>;
  readonly hasher: PasswordHasher;
  readonly mailing: Mailing;
  /** PASSWORD_RESET_EXPIRE, minutes. */
  readonly expireMinutes: number;
  /** The login counts a successful reset clears (docs/security.md). */
  readonly throttle: LoginThrottle;
}

/** At most one reset mail per address per minute (Laravel's broker throttle), shared by all instances. */
export const THROTTLE_MS = MINUTE;

export const forgotPasswordSchema = {
  email: field.required(rules.string(), rules.email(), rules.max(255)),
};

export const resetPasswordSchema = {
  token: field.required(rules.line(), rules.max(255)),
  email: field.required(rules.string(), rules.email(), rules.max(255)),
  password: newPasswordField(),
};

/**
 * "Forgot password". The answer is the same whatever happens here — unknown address, disabled account,
 * throttled, or mail queued — so a public caller must not branch on anything but errors. The result
 * (true: a mail was queued) is for the panel, whose admin already knows the account exists.
 *
 * The token carries 256 bits from the CSPRNG; only its SHA-256 is stored, in the one row a user may
 * have (the primary key is user_id), so a newer request replaces the older token. The upsert itself
 * enforces the throttle: it only overwrites a row older than a minute, so of any number of concurrent
 * requests at most one gets a row back and queues a mail.
 */
export async function requestPasswordReset(
  deps: PasswordResetDeps,
  email: string,
  locale: string,
  audit: AuditContext,
): Promise<boolean> {
  const row = await findUserByEmail(deps.db, normaliseEmail(email));
  if (row === undefined || row.disabled_at !== null) return false;
  const user = toUser(row);
  const token = randomToken(32);
  const queued = await deps.db.transaction().execute(async (trx) => {
    const stored = await storeResetToken(trx, user.id, sha256Hex(token), audit.now, THROTTLE_MS);
    if (!stored) return false;
    const message = resetPasswordMessage(
      deps.mailing.context,
      recipientFor(user, locale),
      token,
      deps.expireMinutes,
    );
    await deps.mailing.queue.enqueue(trx, message);
    await recordAudit(trx, 'password.reset_requested', audit, user.id);
    return true;
  });
  if (queued) deps.mailing.queue.wake();
  return queued;
}

export interface ResetInput {
  readonly token: string;
  readonly email: string;
  readonly password: string;
}

/**
 * Why a reset link did not work. Never shown: the page says "This password reset token is invalid."
 * whatever the reason, so it tells nobody which addresses have accounts or links. It is logged, so a
 * refused link explains itself to whoever reads the server's log (issue 27 item 20: a run's valid reset
 * refused once, with nothing to say which rule).
 * - `unknown_address`: no account has this address; `disabled`: the account is disabled.
 * - `no_link`: the account holds no link: none was asked for, it was used, or a completed login deleted it.
 * - `other_link`: the account holds another link: a newer request replaced this one (or it was mistyped).
 * - `expired`: older than PASSWORD_RESET_EXPIRE minutes.
 * - `spent_meanwhile`: it held when checked, but was gone by the time the password was hashed: another
 *   submit of it won, a login deleted it or a newer request replaced it in between.
 */
export type LinkRefusal =
  | 'unknown_address'
  | 'disabled'
  | 'no_link'
  | 'other_link'
  | 'expired'
  | 'spent_meanwhile';

export type ResetResult =
  | { readonly status: 'reset'; readonly user: User }
  | { readonly status: 'invalid'; readonly reason: LinkRefusal }
  /** The new password contains the account's name (the form's rules saw only the address and APP_NAME). */
  | { readonly status: 'weak'; readonly failure: Failure };

/**
 * The read-only check of a reset link: the user of that address (enabled) holds this token and it has
 * not expired. Used before the form is even shown, so a dead link says so at once instead of after
 * the user has typed a new password twice; the token is still spent only by resetPassword.
 */
export async function checkResetLink(
  deps: Pick<PasswordResetDeps, 'db' | 'expireMinutes'>,
  email: string,
  token: string,
  now: number,
): Promise<
  | { readonly works: true; readonly row: UserRow; readonly tokenHash: string; readonly notBefore: number }
  | { readonly works: false; readonly reason: LinkRefusal }
> {
  const refused = (reason: LinkRefusal) => ({ works: false as const, reason });
  const row = await findUserByEmail(deps.db, normaliseEmail(email));
  if (row === undefined) return refused('unknown_address');
  if (row.disabled_at !== null) return refused('disabled');
  const tokenHash = sha256Hex(token);
  const notBefore = now - deps.expireMinutes * MINUTE;
  const stored = await findResetToken(deps.db, row.id);
  if (stored === undefined) return refused('no_link');
  if (!safeEqual(tokenHash, stored.token_hash)) return refused('other_link');
  if (stored.created_at <= notBefore) return refused('expired');
  return { works: true, row, tokenHash, notBefore };
}

/**
 * Sets a new password with a mailed token. A cheap read-only check (constant-time hash comparison,
 * expiry) comes first so that invalid tokens cost no argon2 hash; then, in ONE transaction, the token
 * is consumed by a conditional DELETE and everything else happens only if exactly one row went: of 20
 * concurrent submits of one token, one changes the password and 19 get "invalid". The transaction
 * also ends every session, remember-me token and API token of the user — whoever knew the old
 * password is out — and queues the "password changed" notice.
 */
export async function resetPassword(
  deps: PasswordResetDeps,
  input: ResetInput,
  locale: string,
  audit: AuditContext,
): Promise<ResetResult> {
  const found = await checkResetLink(deps, input.email, input.token, audit.now);
  if (!found.works) return { status: 'invalid', reason: found.reason };
  const { row, tokenHash, notBefore } = found;
  // Only now, with the link proven, is the account's name used: judged before, the answer would tell
  // anyone holding an address whether a guess at its owner's name was right.
  const weak = personalPasswordFailure(input.password, { appName: '', name: row.name });
  if (weak !== undefined) return { status: 'weak', failure: weak };

  const password = await deps.hasher.hash(input.password);
  const user = toUser(row);
  const done = await deps.db.transaction().execute(async (trx) => {
    if (!(await consumeResetToken(trx, user.id, tokenHash, notBefore))) return false;
    await updateUser(trx, user.id, { password, updated_at: audit.now });
    // The link was mailed to this address and came back: that proves the mailbox as well as a
    // verification link does (an invited user's first password is set this way).
    if (row.email_verified_at === null) await updateUser(trx, user.id, { email_verified_at: audit.now });
    const sessions = await destroyUserSessions(trx, user.id);
    await endProviderSessionsOf(trx, user.id, audit.now, 'revoked');
    const remembered = await revokeRememberTokens(trx, user.id);
    const tokens = await revokeAccessTokens(trx, user.id, { all: true }, { ...audit, actorId: user.id });
    await deps.mailing.queue.enqueue(
      trx,
      // The reset link came back from this mailbox (verified just above): the name may be used.
      passwordChangedMessage(deps.mailing.context, { email: user.email, name: user.name, locale }, audit.now),
    );
    await recordAudit(trx, 'password.reset', { ...audit, actorId: user.id }, user.id, {
      sessions,
      remember_tokens: remembered,
      api_tokens: tokens,
    });
    return true;
  });
  if (!done) return { status: 'invalid', reason: 'spent_meanwhile' };
  // The user must not read "try again in 54 seconds" when logging in with the new password.
  await clearLoginFailures(deps.throttle, user.email, audit.ip);
  deps.mailing.queue.wake();
  return { status: 'reset', user: { ...user, updatedAt: audit.now } };
}
