import type { Kysely } from 'kysely';
import { cascade, timestamp, withId } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('guard', 'varchar(16)', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'varchar(45)')
    .addColumn('user_agent', 'varchar(512)')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('last_activity', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').execute();
  await db.schema
    .createIndex('sessions_last_activity_index')
    .on('sessions')
    .column('last_activity')
    .execute();

  await withId(db, db.schema.createTable('remember_tokens'))
    .addColumn('selector', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('validator_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'integer', cascade)
    .addColumn('guard', 'varchar(16)', (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('last_used_at', timestamp)
    .execute();
  await db.schema
    .createIndex('remember_tokens_user_id_index')
    .on('remember_tokens')
    .column('user_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('remember_tokens').execute();
  await db.schema.dropTable('sessions').execute();
}
