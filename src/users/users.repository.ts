import { preparedQuery } from '../db/fast-path/prepared.ts';
import { hasRowLocks, insertReturningRow } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { NewUserRow, UserRow, UserUpdate } from './users.table.ts';

// Every authenticated request reads its user by id: compiled once (db/fast-path/prepared.ts).
const userById = preparedQuery(
  (db, id: number) => db.selectFrom('users').selectAll().where('id', '=', id),
  0,
);

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return (await userById(db, id))[0];
}

/** `email` must already be lower-cased: the column holds lower-cased addresses only. */
export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function insertUser(db: Db, row: NewUserRow): Promise<UserRow> {
  return insertReturningRow(db, 'users', row);
}

export async function updateUser(db: Db, id: number, changes: UserUpdate): Promise<boolean> {
  const result = await db.updateTable('users').set(changes).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Conditional (… WHERE email_verified_at IS NULL): true only for the call that verified the address. */
export async function setEmailVerified(db: Db, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ email_verified_at: now, updated_at: now })
    .where('id', '=', id)
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Deletes the user row; sessions, tokens, reset tokens and posts go with it (foreign keys cascade). */
export async function deleteUserRow(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Ids of the users whose panel-access flag is set and who are not disabled (a plain, unlocked read). */
export async function panelUserIds(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('can_access_panel', '=', 1)
    .where('disabled_at', 'is', null)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The rows of `ids` (those that exist). With `lock`, they stay locked until the transaction ends: FOR
 * UPDATE by primary key, in id order, so two transactions locking overlapping sets queue instead of
 * deadlocking, and each reads the rows as the other left them.
 */
export function findUserRows(db: Db, ids: readonly number[], options: { lock: boolean }): Promise<UserRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const query = db
    .selectFrom('users')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id');
  return (options.lock && hasRowLocks(db) ? query.forUpdate() : query).execute();
}
