import type { ExpressionBuilder } from 'kysely';
import { insertUnlessDuplicate, isMysql } from '../../db/portable.ts';
import type { Database, Db } from '../../db/schema.ts';
import { JOINED_USER_COLUMNS, type JoinedUserColumns } from '../../users/users.repository.ts';
import type { NewSessionRow, SessionRow } from './sessions.table.ts';
import type { SessionCutoffs } from './sessions.ts';

export function findSessionRow(db: Db, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A session by key with its user's columns (u_…, null for a guest): one query per page load. */
export function findSessionWithUserRow(
  db: Db,
  id: string,
): Promise<(SessionRow & JoinedUserColumns) | undefined> {
  return db
    .selectFrom('sessions as s')
    .leftJoin('users as u', 'u.id', 's.user_id')
    .selectAll('s')
    .select(JOINED_USER_COLUMNS)
    .where('s.id', '=', id)
    .executeTakeFirst();
}

export async function insertSessionRow(db: Db, row: NewSessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** Inserts unless the id already exists; true when inserted (ON CONFLICT DO NOTHING; db/portable.ts on MySQL). */
export async function insertSessionRowIfAbsent(db: Db, row: NewSessionRow): Promise<boolean> {
  if (isMysql(db)) return insertUnlessDuplicate(db.insertInto('sessions').values(row));
  const inserted = await db
    .insertInto('sessions')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function updateSessionRow(
  db: Db,
  id: string,
  changes: { data?: string; last_activity?: number },
): Promise<void> {
  await db.updateTable('sessions').set(changes).where('id', '=', id).execute();
}

/** Conditional so concurrent requests (or instances) write last_activity at most once a minute. */
export async function touchSessionRow(db: Db, id: string, now: number, notAfter: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_activity: now })
    .where('id', '=', id)
    .where('last_activity', '<=', notAfter)
    .execute();
}

export async function deleteSessionRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteSessionsOfUser(db: Db, userId: number, guard?: string): Promise<number> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (guard !== undefined) query = query.where('guard', '=', guard);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function listSessionsOfUser(db: Db, userId: number): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('last_activity', 'desc')
    .execute();
}

/** Deletes one session, only if it belongs to that user and guard (an id from a form proves nothing). */
export async function deleteSessionOfUser(
  db: Db,
  userId: number,
  guard: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.and({ id, user_id: userId, guard }))
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The session-lifetime rule (sessions.ts isSessionLive) in SQL. */
function live(eb: ExpressionBuilder<Database, 'sessions'>, guard: string, cutoffs: SessionCutoffs) {
  return eb.and([
    eb('sessions.guard', '=', guard),
    eb('sessions.last_activity', '>', cutoffs.activeAfter),
    eb('sessions.created_at', '>', cutoffs.createdAfter),
  ]);
}

/** Deletes the sessions of `guard` that are past their idle or absolute lifetime. */
export async function deleteDeadSessions(db: Db, guard: string, cutoffs: SessionCutoffs): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where('guard', '=', guard)
    .where((eb) => eb.not(live(eb, guard, cutoffs)))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Signed-in sessions that would authenticate now (per guard's lifetimes), their user not disabled. */
export async function countLiveSessions(
  db: Db,
  cutoffs: ReadonlyMap<string, SessionCutoffs>,
): Promise<number> {
  if (cutoffs.size === 0) return 0;
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('users.disabled_at', 'is', null)
    .where((eb) => eb.or([...cutoffs].map(([guard, limits]) => live(eb, guard, limits))))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deletes every session of the user but the one with key `keep` (this browser's). */
export async function deleteOtherSessionsOfUser(db: Db, userId: number, keep: string): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('id', '!=', keep)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
