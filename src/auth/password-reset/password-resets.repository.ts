import { insertUnlessDuplicate, isMysql } from '../../db/portable.ts';
import type { Db } from '../../db/schema.ts';
import type { PasswordResetTokenRow } from './password-resets.table.ts';

/**
 * Stores a user's reset token, replacing an older one only when that is at least `throttleMs` old.
 * False when the older one was too young (nothing written). The throttle lives in the statement, so
 * of any number of concurrent requests (on any instance) at most one gets true:
 * - SQLite and PostgreSQL: an upsert whose UPDATE applies only to an old row.
 * - MySQL: ON DUPLICATE KEY UPDATE reports no usable per-row outcome, so a conditional UPDATE runs
 *   first, then an INSERT that the primary key refuses when any row exists (a fresh one, or one a
 *   concurrent request has just written). READ COMMITTED (db/mysql.ts) means no gap locks, so two
 *   requests cannot deadlock here; a failed statement does not end MySQL's transaction.
 */
export async function storeResetToken(
  db: Db,
  userId: number,
  tokenHash: string,
  now: number,
  throttleMs: number,
): Promise<boolean> {
  const row = { user_id: userId, token_hash: tokenHash, created_at: now };
  if (isMysql(db)) {
    const replaced = await db
      .updateTable('password_reset_tokens')
      .set({ token_hash: tokenHash, created_at: now })
      .where('user_id', '=', userId)
      .where('created_at', '<=', now - throttleMs)
      .executeTakeFirst();
    if (replaced.numUpdatedRows === 1n) return true;
    return insertUnlessDuplicate(db.insertInto('password_reset_tokens').values(row));
  }
  const stored = await db
    .insertInto('password_reset_tokens')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet((eb) => ({
          token_hash: eb.ref('excluded.token_hash'),
          created_at: eb.ref('excluded.created_at'),
        }))
        .where('password_reset_tokens.created_at', '<=', now - throttleMs),
    )
    .returning('user_id')
    .executeTakeFirst();
  return stored !== undefined;
}

export function findResetToken(db: Db, userId: number): Promise<PasswordResetTokenRow | undefined> {
  return db.selectFrom('password_reset_tokens').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Spends the token: one conditional DELETE, so of concurrent submits exactly one gets true. */
export async function consumeResetToken(
  db: Db,
  userId: number,
  tokenHash: string,
  createdAfter: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('password_reset_tokens')
    .where('user_id', '=', userId)
    .where('token_hash', '=', tokenHash)
    .where('created_at', '>', createdAfter)
    .executeTakeFirst();
  return result.numDeletedRows === 1n;
}

/** Deletes the user's reset token, if any (a completed login: login.ts). */
export async function deleteResetTokens(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('password_reset_tokens').where('user_id', '=', userId).execute();
}
