import type { Kysely } from 'kysely';
import { cascade, timestamp, withId } from './helpers.ts';

/**
 * The OpenID Connect provider (docs/guides/oidc-provider.md; see src/oauth/*.table.ts):
 * - oauth_models: every object oidc-provider stores (codes, refresh tokens, grants, sessions,
 *   interactions…), one row each, keyed by kind and the SHA-256 of its id — an id is often the bearer
 *   value itself (a code, a refresh token, a session cookie), so a database dump yields none of them.
 *   The lookup columns beside the JSON payload are what the adapter and Gatehouse search by.
 * - oauth_clients: the registered relying parties; a confidential client's secret only as a SHA-256.
 * - oauth_signing_keys: the provider's signing keys, the private half sealed with APP_KEY.
 * - oauth_consents: what a user allowed a client (the account page's connected apps).
 * - oauth_logout_outbox: back-channel logout notices waiting to be delivered (like webhook_outbox).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_models')
    .addColumn('kind', 'varchar(40)', (c) => c.notNull())
    .addColumn('id_hash', 'char(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_hash', 'char(64)')
    .addColumn('uid_hash', 'char(64)')
    .addColumn('user_code_hash', 'char(64)')
    .addColumn('account_id', 'varchar(64)')
    .addColumn('client_id', 'varchar(64)')
    .addColumn('session_binding', 'char(64)')
    .addColumn('expires_at', timestamp)
    .addColumn('consumed_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_models_primary', ['kind', 'id_hash'])
    .execute();
  for (const columns of [
    ['grant_hash'],
    ['uid_hash'],
    ['user_code_hash'],
    ['account_id', 'kind'],
    ['client_id'],
    ['session_binding'],
    ['expires_at'],
  ]) {
    await db.schema
      .createIndex(`oauth_models_${columns.join('_')}_index`)
      .on('oauth_models')
      .columns(columns)
      .execute();
  }

  await withId(db, db.schema.createTable('oauth_clients'))
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('secret_hash', 'char(64)')
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull())
    .addColumn('backchannel_logout_uri', 'varchar(2048)')
    .addColumn('grant_types', 'varchar(512)', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('trusted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('secret_rotated_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('oauth_signing_keys'))
    .addColumn('kid', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('alg', 'varchar(16)', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('retired_at', timestamp)
    .execute();

  await withId(db, db.schema.createTable('oauth_consents'))
    .addColumn('user_id', 'integer', cascade)
    .addColumn('client_id', 'varchar(64)', (c) =>
      c.notNull().references('oauth_clients.client_id').onDelete('cascade'),
    )
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addColumn('last_used_at', timestamp)
    .execute();
  await db.schema
    .createIndex('oauth_consents_user_client_unique')
    .on('oauth_consents')
    .columns(['user_id', 'client_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('oauth_consents_client_id_index')
    .on('oauth_consents')
    .column('client_id')
    .execute();

  await withId(db, db.schema.createTable('oauth_logout_outbox'))
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
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
    .createIndex('oauth_logout_outbox_pending_index')
    .on('oauth_logout_outbox')
    .columns(['sent_at', 'available_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'oauth_logout_outbox',
    'oauth_consents',
    'oauth_signing_keys',
    'oauth_clients',
    'oauth_models',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
