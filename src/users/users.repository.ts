import { hasRowLocks, insertReturningRow } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import { toUser, type User } from './user.ts';
import type { NewUserRow, UserRow, UserUpdate } from './users.table.ts';

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The user columns a joined read brings along (a token's or a session's user, in the same query),
 * each as `u_<column>` so that none clashes with the other table's. Select them from the users table
 * aliased `u`; `joinedUser` turns them back into a User.
 */
export const JOINED_USER_COLUMNS = [
  'u.id as u_id',
  'u.name as u_name',
  'u.email as u_email',
  'u.email_verified_at as u_email_verified_at',
  'u.locale as u_locale',
  'u.can_access_panel as u_can_access_panel',
  'u.disabled_at as u_disabled_at',
  'u.created_at as u_created_at',
  'u.updated_at as u_updated_at',
] as const;

export interface JoinedUserColumns {
  u_id: number | null;
  u_name: string | null;
  u_email: string | null;
  u_email_verified_at: number | null;
  u_locale: string | null;
  u_can_access_panel: number | null;
  u_disabled_at: number | null;
  u_created_at: number | null;
  u_updated_at: number | null;
}

/** The user of a joined read; null when the outer join found none. */
export function joinedUser(row: JoinedUserColumns): User | null {
  if (row.u_id === null) return null;
  return toUser({
    id: row.u_id,
    name: row.u_name!,
    email: row.u_email!,
    email_verified_at: row.u_email_verified_at,
    locale: row.u_locale!,
    can_access_panel: row.u_can_access_panel!,
    disabled_at: row.u_disabled_at,
    created_at: row.u_created_at!,
    updated_at: row.u_updated_at!,
  });
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
