import type { Kysely } from 'kysely';
import { timestamp, withId } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('users'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('email', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('password', 'varchar(255)', (c) => c.notNull())
    .addColumn('email_verified_at', timestamp)
    .addColumn('locale', 'varchar(8)', (c) => c.notNull().defaultTo('en'))
    .addColumn('can_access_panel', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_created_at_index').on('users').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('users').execute();
}
