import type { Kysely } from 'kysely';
import { cascade, timestamp, withId } from './helpers.ts';

/**
 * Identities at other providers linked to users (docs/guides/login-providers.md; see
 * identities/identities.table.ts): one row per (provider, subject), which the unique index keeps to
 * one user whatever the races, and at most one identity of a provider per user.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('identities'))
    .addColumn('user_id', 'integer', cascade)
    .addColumn('provider', 'varchar(32)', (c) => c.notNull())
    .addColumn('subject', 'varchar(255)', (c) => c.notNull())
    .addColumn('email', 'varchar(255)')
    .addColumn('email_verified', 'integer', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addColumn('last_used_at', timestamp)
    .addUniqueConstraint('identities_provider_subject_unique', ['provider', 'subject'])
    .addUniqueConstraint('identities_user_id_provider_unique', ['user_id', 'provider'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('identities').execute();
}
