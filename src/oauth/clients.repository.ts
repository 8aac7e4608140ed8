import type { Db } from '../db/schema.ts';
import type { NewOauthClientRow, OauthClientRow, OauthClientsTable } from './clients.table.ts';

export function findClientRow(db: Db, clientId: string): Promise<OauthClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export function listClientRows(db: Db): Promise<OauthClientRow[]> {
  return db.selectFrom('oauth_clients').selectAll().orderBy('id').execute();
}

/** Every client's redirect URIs (JSON arrays), for the CORS origins. */
export async function listClientRedirectUris(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('oauth_clients').select('redirect_uris').execute();
  return rows.map((row) => row.redirect_uris);
}

export async function insertClientRow(db: Db, row: NewOauthClientRow): Promise<void> {
  await db.insertInto('oauth_clients').values(row).execute();
}

type ClientChanges = Partial<Omit<OauthClientsTable, 'id' | 'client_id' | 'created_at'>>;

/** Applies `changes`; false when no such client. */
export async function updateClientRow(db: Db, clientId: string, changes: ClientChanges): Promise<boolean> {
  const result = await db
    .updateTable('oauth_clients')
    .set(changes)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes the client (its consents go with it, by foreign key); false when there was none. */
export async function deleteClientRow(db: Db, clientId: string): Promise<boolean> {
  const result = await db.deleteFrom('oauth_clients').where('client_id', '=', clientId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
