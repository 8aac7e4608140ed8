import type { Kysely } from 'kysely';
import { timestamp, withId } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // No foreign keys: the audit trail outlives the users it mentions.
  await withId(db, db.schema.createTable('audit_log'))
    .addColumn('event', 'varchar(64)', (c) => c.notNull())
    .addColumn('actor_id', 'integer')
    .addColumn('subject_id', 'integer')
    .addColumn('ip_address', 'varchar(45)')
    .addColumn('details', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_created_at_index').on('audit_log').column('created_at').execute();
  await db.schema.createIndex('audit_log_subject_id_index').on('audit_log').column('subject_id').execute();
  await db.schema.createIndex('audit_log_actor_id_index').on('audit_log').column('actor_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
}
