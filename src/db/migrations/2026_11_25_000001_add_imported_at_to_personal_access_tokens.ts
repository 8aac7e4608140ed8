import type { Kysely } from 'kysely';
import { timestamp } from './helpers.ts';

/**
 * When a token was brought over from a Laravel application (null: Gatehouse issued it). Only such
 * tokens authenticate in the older shapes Sanctum issued — no checksum, or a bare secret found by its
 * hash (docs/guides/mysql.md); a token Gatehouse issues keeps the strict `<id>|<prefix><40><crc32b>` form.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('personal_access_tokens').addColumn('imported_at', timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('personal_access_tokens').dropColumn('imported_at').execute();
}
