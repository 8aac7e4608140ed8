import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { Db } from '../db/schema.ts';
import { randomToken, safeEqual, sha256Hex } from '../lib/crypto.ts';

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

const MINUTE = 60_000;

/**
 * A browser coming back (tabs restored after a restart) sends several requests with the same cookie
 * at once; only one can rotate it. The others present the validator that was current a moment ago.
 * Treating them as theft would log the user out everywhere; so for this long after the rotation the
 * previous validator is refused quietly (no session, no revocation: exactly one request wins, and the
 * browser's next request carries the winner's cookies). A replay later than that — the case of a
 * copied cookie — revokes every remember token of the user.
 */
export const ROTATION_GRACE_MS = 30_000;

function parse(cookie: string | undefined): { selector: string; validator: string } | null {
  const match = cookie ? /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/.exec(cookie) : null;
  return match ? { selector: match[1]!, validator: match[2]! } : null;
}

export async function issueRememberToken(
  db: Db,
  guard: string,
  userId: number,
  lifetimeMinutes: number,
  now: number,
): Promise<string> {
  const selector = randomToken(12);
  const validator = randomToken(32);
  await db
    .insertInto('remember_tokens')
    .values({
      selector,
      validator_hash: sha256Hex(validator),
      user_id: userId,
      guard,
      expires_at: now + lifetimeMinutes * MINUTE,
      created_at: now,
      last_used_at: null,
    })
    .execute();
  return `${selector}.${validator}`;
}

/**
 * Trades a remember cookie for its user and a fresh cookie. A known selector with a wrong validator
 * means an old cookie was replayed (or a race lost): all of that user's remember tokens are revoked.
 */
export async function consumeRememberToken(
  db: Db,
  guard: string,
  cookie: string | undefined,
  audit: AuditContext,
): Promise<RememberResult> {
  const parsed = parse(cookie);
  if (parsed === null) return { status: 'invalid' };
  const find = () =>
    db.selectFrom('remember_tokens').selectAll().where('selector', '=', parsed.selector).executeTakeFirst();
  let row = await find();
  if (row === undefined || row.guard !== guard) return { status: 'invalid' };
  if (row.expires_at <= audit.now) {
    await db.deleteFrom('remember_tokens').where('id', '=', row.id).execute();
    return { status: 'invalid' };
  }
  const presented = sha256Hex(parsed.validator);
  if (safeEqual(presented, row.validator_hash)) {
    const validator = randomToken(32);
    // Compare-and-swap: of several concurrent uses of one cookie exactly one rotates it.
    const swapped = await db
      .updateTable('remember_tokens')
      .set({
        validator_hash: sha256Hex(validator),
        previous_validator_hash: row.validator_hash,
        rotated_at: audit.now,
        last_used_at: audit.now,
      })
      .where('id', '=', row.id)
      .where('validator_hash', '=', row.validator_hash)
      .executeTakeFirst();
    if (swapped.numUpdatedRows === 1n)
      return { status: 'ok', userId: row.user_id, cookie: `${parsed.selector}.${validator}` };
    // Lost the race: the winner's rotation made our validator the previous one.
    row = await find();
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
  await revokeRememberTokens(db, row.user_id, guard);
  await recordAudit(db, 'remember.theft_suspected', audit, row.user_id, { guard });
  return { status: 'theft', userId: row.user_id };
}

/** Forgets the token behind one cookie (logout). */
export async function forgetRememberToken(db: Db, cookie: string | undefined): Promise<void> {
  const parsed = parse(cookie);
  if (parsed) await db.deleteFrom('remember_tokens').where('selector', '=', parsed.selector).execute();
}

export async function revokeRememberTokens(db: Db, userId: number, guard?: string): Promise<number> {
  let query = db.deleteFrom('remember_tokens').where('user_id', '=', userId);
  if (guard !== undefined) query = query.where('guard', '=', guard);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes expired remember-me tokens (sessions:prune); an expired one is refused anyway, this keeps the table small. */
export async function pruneRememberTokens(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('remember_tokens').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
