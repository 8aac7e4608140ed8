import type { Kysely } from 'kysely';
import { timestamp } from './helpers.ts';

/**
 * A mail the SMTP server refused for good (a 5xx reply) or that could not be delivered for days is
 * given up: failed_at records that, so the worker stops retrying and operators can find it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('failed_at', timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_outbox').dropColumn('failed_at').execute();
}
