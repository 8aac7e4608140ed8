import type { Kysely } from 'kysely';
import { cascade, timestamp, withId } from './helpers.ts';

/**
 * Passkeys (docs/guides/passkeys.md; see passkeys/passkeys.table.ts):
 * - passkeys: a user's WebAuthn credentials — public keys only, nothing secret. `credential_hash`
 *   (SHA-256 of the credential id) is the unique lookup key: an id may be up to 1,023 bytes, longer
 *   than MySQL can index in utf8mb4, so the id itself is kept in a text column beside it.
 * - passkey_challenges: the server-side challenges of registration and sign-in, single-use, bound to
 *   one browser session, 5 minutes; in the database so that every instance sees them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('passkeys'))
    .addColumn('user_id', 'integer', cascade)
    .addColumn('credential_hash', 'char(64)', (c) => c.notNull().unique())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'varchar(255)', (c) => c.notNull())
    .addColumn('user_handle', 'varchar(64)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addColumn('last_used_at', timestamp)
    .execute();
  await db.schema.createIndex('passkeys_user_id_index').on('passkeys').column('user_id').execute();

  await db.schema
    .createTable('passkey_challenges')
    .addColumn('challenge_hash', 'char(64)', (c) => c.primaryKey())
    .addColumn('session_binding', 'char(64)', (c) => c.notNull())
    .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('passkey_challenges_expires_at_index')
    .on('passkey_challenges')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('passkey_challenges').execute();
  await db.schema.dropTable('passkeys').execute();
}
