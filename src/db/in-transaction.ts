import type { Db } from './schema.ts';

/**
 * Runs `work` in one transaction: the caller's, when `db` already is one, or a new one. For a change
 * whose audit row (and with it the webhook event, audit/audit.ts) must commit with it or not at all,
 * whoever calls it.
 */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
