import type { Db } from '../../db/schema.ts';
import type { NewRememberTokenRow, RememberTokenRow } from './remember-tokens.table.ts';

export async function insertRememberToken(db: Db, row: NewRememberTokenRow): Promise<void> {
  await db.insertInto('remember_tokens').values(row).execute();
}

export function findRememberToken(db: Db, selector: string): Promise<RememberTokenRow | undefined> {
  return db.selectFrom('remember_tokens').selectAll().where('selector', '=', selector).executeTakeFirst();
}

/**
 * Compare-and-swap: replaces the validator only while it is still `current`, so of several concurrent
 * uses of one cookie exactly one rotates it. True when this call did.
 */
export async function rotateRememberToken(
  db: Db,
  id: number,
  current: string,
  next: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('remember_tokens')
    .set({ validator_hash: next, previous_validator_hash: current, rotated_at: now, last_used_at: now })
    .where('id', '=', id)
    .where('validator_hash', '=', current)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function deleteRememberToken(db: Db, id: number): Promise<void> {
  await db.deleteFrom('remember_tokens').where('id', '=', id).execute();
}

export async function deleteRememberTokenBySelector(db: Db, selector: string): Promise<void> {
  await db.deleteFrom('remember_tokens').where('selector', '=', selector).execute();
}

export async function deleteRememberTokensOfUser(db: Db, userId: number, guard?: string): Promise<number> {
  let query = db.deleteFrom('remember_tokens').where('user_id', '=', userId);
  if (guard !== undefined) query = query.where('guard', '=', guard);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteExpiredRememberTokens(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('remember_tokens').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The user's unexpired remember-me tokens of `guard`, most recently used first. */
export function listRememberTokensOfUser(
  db: Db,
  userId: number,
  guard: string,
  now: number,
): Promise<RememberTokenRow[]> {
  return db
    .selectFrom('remember_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .where('guard', '=', guard)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .execute();
}

/** Every remember-me token row of the user, of any guard, expired ones not yet pruned included. */
export function allRememberTokensOfUser(db: Db, userId: number): Promise<RememberTokenRow[]> {
  return db
    .selectFrom('remember_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
}

/** Deletes one token by selector, only if it is that user's (a selector from a request proves nothing). */
export async function deleteRememberTokenOfUser(db: Db, userId: number, selector: string): Promise<number> {
  const result = await db
    .deleteFrom('remember_tokens')
    .where('user_id', '=', userId)
    .where('selector', '=', selector)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes every token of the user but the one with `keep` (this browser's), if any. */
export async function deleteOtherRememberTokens(
  db: Db,
  userId: number,
  keep: string | null,
): Promise<number> {
  let query = db.deleteFrom('remember_tokens').where('user_id', '=', userId);
  if (keep !== null) query = query.where('selector', '!=', keep);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}
