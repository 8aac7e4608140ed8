import type { Kysely } from 'kysely';
import { timestamp } from './helpers.ts';

/**
 * Remember-me rotation grace: the hash of the validator a token had before its last rotation, and
 * when that happened, so that the other requests of a browser that raced the rotating one (tabs
 * restored after a restart all send the same cookie at once) are not mistaken for a stolen cookie.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema.alterTable('remember_tokens').addColumn('previous_validator_hash', 'varchar(64)').execute();
  await db.schema.alterTable('remember_tokens').addColumn('rotated_at', timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('remember_tokens').dropColumn('rotated_at').execute();
  await db.schema.alterTable('remember_tokens').dropColumn('previous_validator_hash').execute();
}
