import type { Kysely } from 'kysely';
import { timestamp, withId } from './helpers.ts';

/**
 * Webhook events as the change that caused them writes them (docs/guides/webhooks.md): one row per event,
 * whoever wrote it — a request, or a CLI command whose environment names no endpoint at all. The running
 * service turns each into one webhook_outbox delivery per endpoint it is configured with. The lease and
 * retry columns are those of every outbox (outbox/leased-rows.ts); webhook_outbox keeps its shape.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('webhook_events'))
    .addColumn('message_id', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('type', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('available_at', timestamp, (c) => c.notNull())
    .addColumn('locked_until', timestamp)
    .addColumn('sent_at', timestamp)
    .addColumn('failed_at', timestamp)
    .addColumn('last_error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_events_pending_index')
    .on('webhook_events')
    .columns(['sent_at', 'available_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_events').execute();
}
