import { insertReturningId } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { NewOutboxRow } from './outbox.table.ts';

// Claiming, leasing and the outcome of a delivery are shared by every outbox: outbox/leased-rows.ts.

export async function insertOutboxRow(db: Db, row: NewOutboxRow): Promise<number> {
  return insertReturningId(db, 'mail_outbox', row);
}

/** Drops mail to `recipient` that is still waiting (neither sent nor given up). */
export async function dropUndelivered(db: Db, recipient: string): Promise<number> {
  const result = await db
    .deleteFrom('mail_outbox')
    .where('recipient', '=', recipient)
    .where('sent_at', 'is', null)
    .where('failed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
