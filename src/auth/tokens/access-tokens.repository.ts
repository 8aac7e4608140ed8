import type { ExpressionBuilder } from 'kysely';
import { insertReturningRow } from '../../db/portable.ts';
import type { Database, Db } from '../../db/schema.ts';
import { JOINED_USER_COLUMNS, type JoinedUserColumns } from '../../users/users.repository.ts';
import type { AccessTokenRow, NewAccessTokenRow } from './access-tokens.table.ts';
import type { TokenCutoffs } from './access-tokens.ts';

export function findTokenById(db: Db, id: number): Promise<AccessTokenRow | undefined> {
  return db.selectFrom('personal_access_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A token by id with its user's columns (u_…, null when the user row is gone): one query per bearer check. */
export function findTokenWithUserById(
  db: Db,
  id: number,
): Promise<(AccessTokenRow & JoinedUserColumns) | undefined> {
  return db
    .selectFrom('personal_access_tokens as t')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .selectAll('t')
    .select(JOINED_USER_COLUMNS)
    .where('t.id', '=', id)
    .executeTakeFirst();
}

/** A token by the SHA-256 of its secret (unique column): only for imported tokens' bare-secret form. */
export async function findTokenByHash(db: Db, hash: string): Promise<AccessTokenRow | undefined> {
  return db.selectFrom('personal_access_tokens').selectAll().where('token', '=', hash).executeTakeFirst();
}

export function insertToken(db: Db, row: NewAccessTokenRow): Promise<AccessTokenRow> {
  return insertReturningRow(db, 'personal_access_tokens', row);
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

/** The token-lifetime rule (access-tokens.ts tokenExpiresAt) in SQL: the token would authenticate at `cutoffs.now`. */
function live(eb: ExpressionBuilder<Database, 'personal_access_tokens'>, cutoffs: TokenCutoffs) {
  const ownExpiry = eb.or([
    eb('personal_access_tokens.expires_at', 'is', null),
    eb('personal_access_tokens.expires_at', '>', cutoffs.now),
  ]);
  return cutoffs.createdAfter === null
    ? ownExpiry
    : eb.and([ownExpiry, eb('personal_access_tokens.created_at', '>', cutoffs.createdAfter)]);
}

export async function deleteExpiredTokens(db: Db, cutoffs: TokenCutoffs): Promise<number> {
  const result = await db
    .deleteFrom('personal_access_tokens')
    .where((eb) => eb.not(live(eb, cutoffs)))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Tokens that would authenticate now: live, and their owner not disabled. */
export async function countLiveTokens(db: Db, cutoffs: TokenCutoffs): Promise<number> {
  const row = await db
    .selectFrom('personal_access_tokens')
    .innerJoin('users', 'users.id', 'personal_access_tokens.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('users.disabled_at', 'is', null)
    .where((eb) => live(eb, cutoffs))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Replaces a token's abilities, only if the token is that user's; true when it was. */
export async function updateTokenAbilities(
  db: Db,
  userId: number,
  id: number,
  abilities: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('personal_access_tokens')
    .set({ abilities, updated_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
