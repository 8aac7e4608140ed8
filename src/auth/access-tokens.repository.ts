import { preparedQuery } from '../db/fast-path/prepared.ts';
import type { Db } from '../db/schema.ts';
import type { AccessTokenRow, NewAccessTokenRow } from './access-tokens.table.ts';

// Every bearer request reads its token by id: compiled once (db/fast-path/prepared.ts).
const tokenById = preparedQuery(
  (db, id: number) => db.selectFrom('personal_access_tokens').selectAll().where('id', '=', id),
  0,
);

export async function findTokenById(db: Db, id: number): Promise<AccessTokenRow | undefined> {
  return (await tokenById(db, id))[0];
}

export function insertToken(db: Db, row: NewAccessTokenRow): Promise<AccessTokenRow> {
  return db.insertInto('personal_access_tokens').values(row).returningAll().executeTakeFirstOrThrow();
}

export function listTokensOfUser(db: Db, userId: number): Promise<AccessTokenRow[]> {
  return db
    .selectFrom('personal_access_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
}

/** Conditional, so several instances racing on one token still write at most once a minute. */
export async function touchToken(db: Db, id: number, now: number, notBefore: number): Promise<void> {
  await db
    .updateTable('personal_access_tokens')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', notBefore)]))
    .execute();
}

export async function deleteTokens(
  db: Db,
  userId: number,
  filter: { id?: number; name?: string } = {},
): Promise<number> {
  let query = db.deleteFrom('personal_access_tokens').where('user_id', '=', userId);
  if (filter.id !== undefined) query = query.where('id', '=', filter.id);
  if (filter.name !== undefined) query = query.where('name', '=', filter.name);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteExpiredTokens(
  db: Db,
  now: number,
  createdBefore: number | null,
): Promise<number> {
  const result = await db
    .deleteFrom('personal_access_tokens')
    .where((eb) => {
      const expired = eb('expires_at', '<=', now);
      return createdBefore === null ? expired : eb.or([expired, eb('created_at', '<=', createdBefore)]);
    })
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
