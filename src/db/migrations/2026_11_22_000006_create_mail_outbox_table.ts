import type { Kysely } from 'kysely';
import { timestamp, withId } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('mail_outbox'))
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('recipient', 'varchar(320)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('available_at', timestamp, (c) => c.notNull())
    .addColumn('locked_until', timestamp)
    .addColumn('sent_at', timestamp)
    .addColumn('last_error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mail_outbox_pending_index')
    .on('mail_outbox')
    .columns(['sent_at', 'available_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mail_outbox').execute();
}
