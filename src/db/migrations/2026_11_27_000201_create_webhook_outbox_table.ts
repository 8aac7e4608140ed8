import type { Kysely } from 'kysely';
import { timestamp, withId } from './helpers.ts';

/**
 * Webhook events waiting to be delivered (docs/guides/webhooks.md), one row per event and endpoint, written in
 * the transaction of the change they report. The lease and retry columns are those of mail_outbox.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('webhook_outbox'))
    .addColumn('message_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('type', 'varchar(64)', (c) => c.notNull())
    .addColumn('endpoint_hash', 'char(64)', (c) => c.notNull())
    .addColumn('endpoint', 'varchar(2048)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('available_at', timestamp, (c) => c.notNull())
    .addColumn('locked_until', timestamp)
    .addColumn('sent_at', timestamp)
    .addColumn('failed_at', timestamp)
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_outbox_message_endpoint_unique')
    .on('webhook_outbox')
    .columns(['message_id', 'endpoint_hash'])
    .unique()
    .execute();
  // Each endpoint's queue claims its own due rows: led by the endpoint, so a claim reads (and on
  // MySQL, locks) only that endpoint's rows and never skips another endpoint's.
  await db.schema
    .createIndex('webhook_outbox_endpoint_pending_index')
    .on('webhook_outbox')
    .columns(['endpoint_hash', 'sent_at', 'available_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_outbox').execute();
}
