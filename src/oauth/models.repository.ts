import { isMysql } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { NewOauthModelRow, OauthModelRow } from './models.table.ts';

/** Columns a model can be searched by besides its id (each holds a SHA-256, see models.table.ts). */
export type ModelLookup = 'uid_hash' | 'user_code_hash';

/** Inserts the object, or replaces the stored one with the same kind and id. */
export async function upsertModel(db: Db, row: NewOauthModelRow): Promise<void> {
  const { kind: _kind, id_hash: _id, created_at: _created, ...changes } = row;
  const insert = db.insertInto('oauth_models').values(row);
  if (isMysql(db)) {
    await insert.onDuplicateKeyUpdate(changes).execute();
    return;
  }
  await insert.onConflict((oc) => oc.columns(['kind', 'id_hash']).doUpdateSet(changes)).execute();
}

/** The live (unexpired) object of this kind and id. */
export function findModel(db: Db, kind: string, idHash: string, now: number) {
  return live(db, now).where('kind', '=', kind).where('id_hash', '=', idHash).executeTakeFirst();
}

/** The live object of this kind found by a lookup column (a session by uid, a device code by user code). */
export function findModelBy(db: Db, kind: string, column: ModelLookup, hash: string, now: number) {
  return live(db, now).where('kind', '=', kind).where(column, '=', hash).executeTakeFirst();
}

function live(db: Db, now: number) {
  return db
    .selectFrom('oauth_models')
    .selectAll()
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
}

/**
 * Marks a code or refresh token used, in one conditional UPDATE: of two requests presenting it at
 * once, exactly one changes the row; false for the other (and for one already used or gone).
 */
export async function consumeModel(db: Db, kind: string, idHash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_models')
    .set({ consumed_at: now })
    .where('kind', '=', kind)
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function destroyModel(db: Db, kind: string, idHash: string): Promise<void> {
  await db.deleteFrom('oauth_models').where('kind', '=', kind).where('id_hash', '=', idHash).execute();
}

/**
 * Deletes the objects of one kind issued from a grant (the library asks once per kind; one kind per
 * statement keeps concurrent revocations of the same grant from locking the same rows).
 */
export async function destroyModelsOfGrant(db: Db, kind: string, grantHash: string): Promise<void> {
  await db.deleteFrom('oauth_models').where('kind', '=', kind).where('grant_hash', '=', grantHash).execute();
}

/** Every object of every kind issued from these grants, and the grants themselves. */
export async function destroyGrants(db: Db, grantHashes: readonly string[]): Promise<void> {
  if (grantHashes.length === 0) return;
  await db
    .deleteFrom('oauth_models')
    .where((eb) =>
      eb.or([
        eb('grant_hash', 'in', grantHashes),
        eb.and([eb('kind', '=', 'Grant'), eb('id_hash', 'in', grantHashes)]),
      ]),
    )
    .execute();
}

/** Live objects of one kind belonging to a user, optionally only those of one client. */
export function modelsOfAccount(
  db: Db,
  kind: string,
  accountId: string,
  now: number,
  clientId?: string,
): Promise<OauthModelRow[]> {
  let query = live(db, now).where('account_id', '=', accountId).where('kind', '=', kind);
  if (clientId !== undefined) query = query.where('client_id', '=', clientId);
  return query.execute();
}

/** Live objects of one kind belonging to a client. */
export function modelsOfClient(db: Db, kind: string, clientId: string, now: number) {
  return live(db, now).where('client_id', '=', clientId).where('kind', '=', kind).execute();
}

/** The provider sessions that follow one Gatehouse session (provider-session.ts). */
export function sessionsBoundTo(db: Db, binding: string): Promise<OauthModelRow[]> {
  return db
    .selectFrom('oauth_models')
    .selectAll()
    .where('kind', '=', 'Session')
    .where('session_binding', '=', binding)
    .execute();
}

/**
 * The signed-in provider sessions of an account whose Gatehouse session is gone (logged out, revoked,
 * its user deleted): their binding names no session row any more.
 */
export function sessionsOfEndedBindings(db: Db, accountId: string): Promise<OauthModelRow[]> {
  return db
    .selectFrom('oauth_models')
    .selectAll()
    .where('kind', '=', 'Session')
    .where('account_id', '=', accountId)
    .where('session_binding', 'is not', null)
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('sessions')
            .select('sessions.id')
            .whereRef('sessions.id', '=', 'oauth_models.session_binding'),
        ),
      ),
    )
    .execute();
}

/** A provider session's new payload and the Gatehouse session it now follows. */
export async function updateSession(db: Db, idHash: string, payload: string, binding: string): Promise<void> {
  await db
    .updateTable('oauth_models')
    .set({ payload, session_binding: binding })
    .where('kind', '=', 'Session')
    .where('id_hash', '=', idHash)
    .execute();
}

/** Deletes rows past their expiry; returns how many. */
export async function pruneExpiredModels(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('oauth_models').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Every object issued to a client (its grants, tokens, codes): the client is being deleted. */
export async function destroyModelsOfClient(db: Db, clientId: string): Promise<void> {
  await db.deleteFrom('oauth_models').where('client_id', '=', clientId).execute();
}

/**
 * Everything one user's authorizations of one client issued — its grants and every code, refresh
 * token and device code of them — deleted: the connected app was disconnected (consents.ts).
 */
export async function destroyModelsOfAccountAndClient(db: Db, accountId: string, clientId: string) {
  const grants = await db
    .selectFrom('oauth_models')
    .select('id_hash')
    .where('kind', '=', 'Grant')
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .execute();
  await destroyGrants(
    db,
    grants.map((grant) => grant.id_hash),
  );
  await db
    .deleteFrom('oauth_models')
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .where('kind', '!=', 'Session')
    .execute();
}
