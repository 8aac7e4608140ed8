import type { Db } from '../db/schema.ts';
import type { NewLogoutOutboxRow } from './logout-outbox.table.ts';

/** The clients among `clientIds` that registered a back-channel logout URI. */
export async function clientsWithBackchannel(db: Db, clientIds: readonly string[]): Promise<string[]> {
  if (clientIds.length === 0) return [];
  const rows = await db
    .selectFrom('oauth_clients')
    .select('client_id')
    .where('client_id', 'in', clientIds)
    .where('backchannel_logout_uri', 'is not', null)
    .execute();
  return rows.map((row) => row.client_id);
}

export async function insertLogoutNotices(db: Db, rows: readonly NewLogoutOutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('oauth_logout_outbox')
    .values([...rows])
    .execute();
}
