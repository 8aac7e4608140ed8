import type { Kysely } from 'kysely';
import { cascade, timestamp, withId } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('personal_access_tokens'))
    .addColumn('user_id', 'integer', cascade)
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('token', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('abilities', 'text', (c) => c.notNull())
    .addColumn('last_used_at', timestamp)
    .addColumn('expires_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('personal_access_tokens_user_id_name_index')
    .on('personal_access_tokens')
    .columns(['user_id', 'name'])
    .execute();
  await db.schema
    .createIndex('personal_access_tokens_expires_at_index')
    .on('personal_access_tokens')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('personal_access_tokens').execute();
}
