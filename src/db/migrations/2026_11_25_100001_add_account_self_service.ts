import type { Kysely } from 'kysely';
import { timestamp } from './helpers.ts';

/**
 * Account self-service (docs/guides/account.md):
 * - users.pending_email / pending_email_at: a new address waits here until the link sent *to it* is
 *   opened; only then does it replace `email` (one pending change per user: a new request replaces it).
 * - remember_tokens.ip_address / user_agent: a remembered browser whose session has ended is still
 *   listed under "browser sessions", with where and what it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema.alterTable('users').addColumn('pending_email', 'varchar(255)').execute();
  await db.schema.alterTable('users').addColumn('pending_email_at', timestamp).execute();
  await db.schema.alterTable('remember_tokens').addColumn('ip_address', 'varchar(45)').execute();
  await db.schema.alterTable('remember_tokens').addColumn('user_agent', 'varchar(512)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('remember_tokens').dropColumn('user_agent').execute();
  await db.schema.alterTable('remember_tokens').dropColumn('ip_address').execute();
  await db.schema.alterTable('users').dropColumn('pending_email_at').execute();
  await db.schema.alterTable('users').dropColumn('pending_email').execute();
}
