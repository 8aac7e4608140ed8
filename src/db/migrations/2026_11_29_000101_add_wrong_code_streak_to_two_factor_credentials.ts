import type { Kysely } from 'kysely';
import { timestamp } from './helpers.ts';

/**
 * Consecutive wrong second factors (docs/security.md): how many wrong codes in a row the account's
 * challenges met since the last right one, and until when they are refused after the tenth. On the
 * credentials row, not in the rate-limit store: every instance sees it, and a restart forgets nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema
    .alterTable('two_factor_credentials')
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('two_factor_credentials').addColumn('locked_until', timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('two_factor_credentials').dropColumn('locked_until').execute();
  await db.schema.alterTable('two_factor_credentials').dropColumn('failed_attempts').execute();
}
