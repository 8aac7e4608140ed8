import type { Db } from '../db/schema.ts';
import type { PasswordResetTokenRow } from './password-resets.table.ts';

/**
 * Stores a user's reset token, replacing an older one only when that is at least `throttleMs` old.
 * False when the older one was too young (nothing written): the upsert itself is the throttle, so of
 * any number of concurrent requests at most one gets a row back.
 */
export async function storeResetToken(
  db: Db,
  userId: number,
  tokenHash: string,
  now: number,
  throttleMs: number,
): Promise<boolean> {
  const stored = await db
    .insertInto('password_reset_tokens')
    .values({ user_id: userId, token_hash: tokenHash, created_at: now })
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
