import type { Kysely } from 'kysely';
import { timestamp } from './helpers.ts';

/** Two-factor authentication (TOTP + recovery codes), one row per user; see two-factor.table.ts. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('two_factor_credentials')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret', 'varchar(255)', (c) => c.notNull())
    .addColumn('recovery_codes', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', timestamp)
    .addColumn('last_used_step', 'bigint')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('two_factor_credentials').execute();
}
