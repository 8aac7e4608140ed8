import type { Db } from '../db/schema.ts';
import type { NewWebhookEventRow } from './webhook-events.table.ts';
import type { NewWebhookRow, WebhookRow } from './webhook-outbox.table.ts';

// Claiming, leasing and the outcome of a delivery are shared by every outbox: outbox/leased-rows.ts.

export async function insertWebhookEvent(db: Db, row: NewWebhookEventRow): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute();
}

/** Deletes events no service has taken since `before` (nobody delivers webhooks); returns how many. */
export async function dropUntakenEvents(db: Db, before: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_events')
    .where('sent_at', 'is', null)
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertWebhookRows(db: Db, rows: readonly NewWebhookRow[]): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('webhook_outbox')
      .values([...rows])
      .execute();
}

/** A delivery as the panel lists it: everything but the payload. */
export type DeliveryRow = Omit<WebhookRow, 'payload' | 'endpoint_hash'>;

export async function listDeliveries(
  db: Db,
  limit: number,
  offset: number,
): Promise<{ items: DeliveryRow[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom('webhook_outbox')
      .select([
        'id',
        'message_id',
        'type',
        'endpoint',
        'attempts',
        'available_at',
        'locked_until',
        'sent_at',
        'failed_at',
        'last_status',
        'last_error',
        'created_at',
      ])
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('webhook_outbox')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}

export function findDelivery(db: Db, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhook_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Makes an undelivered row due now, given up or not. Conditional: never a delivered row (its payload
 * is gone), never one a worker holds right now (its outcome is about to be written).
 */
export async function requeueDelivery(db: Db, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_outbox')
    .set({ available_at: now, failed_at: null })
    .where('id', '=', id)
    .where('sent_at', 'is', null)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Gives up undelivered rows whose endpoint is not among `hashes` (payload kept for a retry). */
export async function giveUpUnlisted(db: Db, hashes: readonly string[], now: number): Promise<number> {
  let query = db
    .updateTable('webhook_outbox')
    .set({ failed_at: now, locked_until: null, last_error: 'endpoint no longer in WEBHOOK_URLS' })
    .where('sent_at', 'is', null)
    .where('failed_at', 'is', null)
    // A row another instance is delivering right now is left to it.
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]));
  if (hashes.length > 0) query = query.where('endpoint_hash', 'not in', [...hashes]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
