import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../db/connection.ts';
import { insertReturningId } from '../db/portable.ts';
import type { Database, Db } from '../db/schema.ts';
import type { NewOutboxRow, OutboxRow } from './outbox.table.ts';

export async function insertOutboxRow(db: Db, row: NewOutboxRow): Promise<number> {
  return insertReturningId(db, 'mail_outbox', row);
}

const due = (now: number) => (eb: ExpressionBuilder<Database, 'mail_outbox'>) =>
  eb.and([
    eb('sent_at', 'is', null),
    eb('failed_at', 'is', null),
    eb('available_at', '<=', now),
    eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]),
  ]);

/**
 * Takes up to `limit` due rows for this worker by writing a lease (`locked_until`) in ONE statement,
 * so two workers (in this process or on other instances) never get the same row. PostgreSQL skips
 * rows another claim has locked instead of waiting (FOR UPDATE SKIP LOCKED); SQLite runs every write
 * alone, so the conditional UPDATE is already atomic. MySQL can neither update a table through a
 * subquery on itself nor return the updated rows, so there the claim is a short transaction: lock
 * the due rows skipping locked ones (MySQL 8, MariaDB 10.6+), write the lease, read them back. The
 * lease value identifies the claim: later updates only apply while it is still ours.
 */
export async function claimDueRows(
  db: Kysely<Database>,
  dialect: Dialect,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<OutboxRow[]> {
  const lease = (eb: ExpressionBuilder<Database, 'mail_outbox'>) => ({
    locked_until: now + leaseMs,
    attempts: eb('attempts', '+', 1),
  });
  const candidates = (from: Db) =>
    from
      .selectFrom('mail_outbox')
      .select('id')
      .where(due(now))
      .orderBy('available_at')
      .orderBy('id')
      .limit(limit);
  if (dialect === 'mysql') {
    return db.transaction().execute(async (trx) => {
      const ids = (await candidates(trx).forUpdate().skipLocked().execute()).map((row) => row.id);
      if (ids.length === 0) return [];
      await trx.updateTable('mail_outbox').set(lease).where('id', 'in', ids).execute();
      return trx.selectFrom('mail_outbox').selectAll().where('id', 'in', ids).orderBy('id').execute();
    });
  }
  const locked = dialect === 'postgres' ? candidates(db).forUpdate().skipLocked() : candidates(db);
  const rows = await db
    .updateTable('mail_outbox')
    .set(lease)
    .where('id', 'in', locked)
    .where(due(now))
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.id - b.id);
}

/** Delivered: the payload (which may hold a reset link) is wiped; the row stays for diagnostics. */
export async function markSent(db: Db, row: OutboxRow, now: number): Promise<boolean> {
  const result = await db
    .updateTable('mail_outbox')
    .set({ sent_at: now, payload: '', locked_until: null, last_error: null })
    .where('id', '=', row.id)
    .where('locked_until', '=', row.locked_until)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function scheduleRetry(
  db: Db,
  row: OutboxRow,
  availableAt: number,
  error: string,
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ available_at: availableAt, locked_until: null, last_error: error })
    .where('id', '=', row.id)
    .where('locked_until', '=', row.locked_until)
    .execute();
}

/** Given up: kept for operators with its error, payload wiped like a sent one. */
export async function markFailed(db: Db, row: OutboxRow, now: number, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ failed_at: now, payload: '', locked_until: null, last_error: error })
    .where('id', '=', row.id)
    .where('locked_until', '=', row.locked_until)
    .execute();
}

/** Hands unattempted rows back (a stopping worker), without counting the claim as an attempt. */
export async function releaseRows(db: Db, rows: readonly OutboxRow[]): Promise<void> {
  for (const row of rows) {
    await db
      .updateTable('mail_outbox')
      .set((eb) => ({ locked_until: null, attempts: eb('attempts', '-', 1) }))
      .where('id', '=', row.id)
      .where('locked_until', '=', row.locked_until)
      .execute();
  }
}

/** Deletes finished rows (sent or given up) older than `before`; returns how many. */
export async function pruneFinishedRows(db: Db, before: number): Promise<number> {
  const result = await db
    .deleteFrom('mail_outbox')
    .where((eb) =>
      eb.or([
        eb.and([eb('sent_at', 'is not', null), eb('sent_at', '<', before)]),
        eb.and([eb('failed_at', 'is not', null), eb('failed_at', '<', before)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Drops mail to `recipient` that is still waiting (neither sent nor given up). */
export async function dropUndelivered(db: Db, recipient: string): Promise<number> {
  const result = await db
    .deleteFrom('mail_outbox')
    .where('recipient', '=', recipient)
    .where('sent_at', 'is', null)
    .where('failed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
