import type { Db } from '../db/schema.ts';
import type { ConsentRow } from './consents.table.ts';

export function findConsentRow(db: Db, userId: number, clientId: string): Promise<ConsentRow | undefined> {
  return db
    .selectFrom('oauth_consents')
    .selectAll()
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
}

/** A user's consents with the name of each client, most recently used first. */
export function consentsOfUser(db: Db, userId: number) {
  return db
    .selectFrom('oauth_consents as c')
    .innerJoin('oauth_clients as k', 'k.client_id', 'c.client_id')
    .select(['c.client_id', 'c.scope', 'c.created_at', 'c.updated_at', 'c.last_used_at', 'k.name'])
    .where('c.user_id', '=', userId)
    .orderBy('c.updated_at', 'desc')
    .execute();
}

export async function insertConsentRow(
  db: Db,
  row: { user_id: number; client_id: string; scope: string; now: number },
): Promise<void> {
  await db
    .insertInto('oauth_consents')
    .values({
      user_id: row.user_id,
      client_id: row.client_id,
      scope: row.scope,
      created_at: row.now,
      updated_at: row.now,
      last_used_at: null,
    })
    .execute();
}

export async function updateConsentScope(db: Db, id: number, scope: string, now: number): Promise<void> {
  await db.updateTable('oauth_consents').set({ scope, updated_at: now }).where('id', '=', id).execute();
}

export async function touchConsent(db: Db, userId: number, clientId: string, now: number): Promise<void> {
  await db
    .updateTable('oauth_consents')
    .set({ last_used_at: now })
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .execute();
}

/** Deletes one consent; false when there was none. */
export async function deleteConsentRow(db: Db, userId: number, clientId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('oauth_consents')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
