import { type AuditContext, recordAudit } from '../../audit/audit.ts';
import type { Db } from '../../db/schema.ts';
import { MINUTE } from '../../lib/clock.ts';
import { randomToken, safeEqual, sha256Hex } from '../../lib/crypto.ts';
import { endProviderSessionsOf } from '../../oauth/provider-sessions.ts';
import type { UserProvider } from '../guards/guards.ts';
import { deleteSessionsOfUser } from '../sessions/sessions.repository.ts';
import {
  deleteExpiredRememberTokens,
  deleteRememberToken,
  deleteRememberTokenBySelector,
  deleteRememberTokensOfUser,
  findRememberToken,
  insertRememberToken,
  rotateRememberToken,
} from './remember-tokens.repository.ts';

/**
 * Remember-me tokens as selector + validator (Paragon's "split token"): the selector finds the row
 * without a timing-sensitive comparison; only SHA-256 of the validator is stored and it is compared
 * in constant time. Each use replaces the validator, so a replayed old cookie is proof of theft —
 * except within a short grace after a rotation, see ROTATION_GRACE_MS.
 *
 * `stale`: this request lost the rotation race (or came within the grace). It gets no session and
 * must leave the browser's cookie alone — the winner's response carries the new value.
 */
export type RememberResult =
  | { status: 'ok'; userId: number; cookie: string }
  | { status: 'stale' }
  | { status: 'invalid' }
  | { status: 'theft'; userId: number };

/**
 * A browser coming back (tabs restored after a restart) sends several requests with the same cookie
 * at once; only one can rotate it. The others present the validator that was current a moment ago.
 * Treating them as theft would log the user out everywhere; so for this long after the rotation the
 * previous validator is refused quietly (no session, no revocation: exactly one request wins, and the
 * browser's next request carries the winner's cookies). A replay later than that — the case of a
 * copied cookie — ends every session and revokes every remember token of the user (docs/security.md).
 */
export const ROTATION_GRACE_MS = 30_000;

function parse(cookie: string | undefined): { selector: string; validator: string } | null {
  const match = cookie ? /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/.exec(cookie) : null;
  return match ? { selector: match[1]!, validator: match[2]! } : null;
}

/** The session-data key naming the remember-me token (its selector) a session was opened with. */
export const REMEMBER_SELECTOR = 'remember_selector';

/** The browser a remember-me token was issued to, listed with the account's sessions (docs/guides/account.md). */
export interface RememberedDevice {
  readonly ip: string | null;
  readonly userAgent: string | null;
}

export async function issueRememberToken(
  db: Db,
  guard: string,
  userId: number,
  lifetimeMinutes: number,
  now: number,
  device: RememberedDevice = { ip: null, userAgent: null },
): Promise<string> {
  const selector = randomToken(12);
  const validator = randomToken(32);
  await insertRememberToken(db, {
    selector,
    validator_hash: sha256Hex(validator),
    user_id: userId,
    guard,
    expires_at: now + lifetimeMinutes * MINUTE,
    created_at: now,
    last_used_at: null,
    ip_address: device.ip?.slice(0, 45) ?? null,
    user_agent: device.userAgent?.slice(0, 512) ?? null,
  });
  return `${selector}.${validator}`;
}

/** The selector (the public lookup half) of a remember-me cookie, or null for anything malformed. */
export function rememberSelector(cookie: string | undefined): string | null {
  return parse(cookie)?.selector ?? null;
}

/**
 * Trades a remember cookie for its user and a fresh cookie. A known selector with a wrong validator
 * means an old cookie was replayed (or a race lost): see endEverythingRemembered.
 */
export async function consumeRememberToken(
  db: Db,
  guard: string,
  cookie: string | undefined,
  audit: AuditContext,
): Promise<RememberResult> {
  const parsed = parse(cookie);
  if (parsed === null) return { status: 'invalid' };
  let row = await findRememberToken(db, parsed.selector);
  if (row === undefined || row.guard !== guard) return { status: 'invalid' };
  if (row.expires_at <= audit.now) {
    await deleteRememberToken(db, row.id);
    return { status: 'invalid' };
  }
  const presented = sha256Hex(parsed.validator);
  if (safeEqual(presented, row.validator_hash)) {
    const validator = randomToken(32);
    if (await rotateRememberToken(db, row.id, row.validator_hash, sha256Hex(validator), audit.now)) {
      return { status: 'ok', userId: row.user_id, cookie: `${parsed.selector}.${validator}` };
    }
    // Lost the race: the winner's rotation made our validator the previous one.
    row = await findRememberToken(db, parsed.selector);
    if (row === undefined) return { status: 'invalid' };
  }
  if (
    row.previous_validator_hash !== null &&
    row.rotated_at !== null &&
    audit.now - row.rotated_at <= ROTATION_GRACE_MS &&
    safeEqual(presented, row.previous_validator_hash)
  ) {
    return { status: 'stale' };
  }
  await endEverythingRemembered(db, row.user_id, guard, audit);
  return { status: 'theft', userId: row.user_id };
}

/**
 * A replayed cookie means someone else holds (or held) it, and we cannot tell the owner from the
 * thief: whoever used the cookie first may already have a session, which revoking tokens alone would
 * leave open (issue 14). So every session of the user — every guard's, the panel's too — and every
 * remember-me token end, in one transaction with the audit row; the owner signs in again with the
 * password, the thief cannot.
 */
async function endEverythingRemembered(
  db: Db,
  userId: number,
  guard: string,
  audit: AuditContext,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const sessions = await deleteSessionsOfUser(trx, userId);
    const tokens = await deleteRememberTokensOfUser(trx, userId);
    await endProviderSessionsOf(trx, userId, audit.now, 'revoked');
    await recordAudit(trx, 'remember.theft_suspected', audit, userId, {
      guard,
      sessions_ended: sessions,
      remember_tokens_revoked: tokens,
    });
  });
}

/**
 * What a remember-me cookie brings a browser whose session has ended: `ok`, its user (whom the guard's
 * provider still accepts) and the rotated cookie; `stale`, nothing, and the cookie must be left alone
 * (see RememberResult); `refused`, nothing, and the cookie should be cleared.
 */
export type RestoreResult =
  | { status: 'ok'; userId: number; cookie: string }
  | { status: 'stale' }
  | { status: 'refused' };

export async function restoreRememberedUser(
  db: Db,
  guard: string,
  cookie: string | undefined,
  provider: UserProvider,
  audit: AuditContext,
): Promise<RestoreResult> {
  const result = await consumeRememberToken(db, guard, cookie, audit);
  if (result.status === 'ok' || result.status === 'stale') {
    if (result.status === 'stale' || (await provider.retrieveById(result.userId)) !== null) return result;
    // A disabled account's token is spent rather than left rotated: it must not work once re-enabled.
    await forgetRememberToken(db, cookie);
  }
  return { status: 'refused' };
}

/** Forgets the token behind one cookie (logout). */
export async function forgetRememberToken(db: Db, cookie: string | undefined): Promise<void> {
  const parsed = parse(cookie);
  if (parsed) await deleteRememberTokenBySelector(db, parsed.selector);
}

export function revokeRememberTokens(db: Db, userId: number, guard?: string): Promise<number> {
  return deleteRememberTokensOfUser(db, userId, guard);
}

/** Deletes expired remember-me tokens (sessions:prune); an expired one is refused anyway, this keeps the table small. */
export function pruneRememberTokens(db: Db, now: number): Promise<number> {
  return deleteExpiredRememberTokens(db, now);
}
