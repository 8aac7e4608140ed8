import type { ExpressionBuilder, Generated, Kysely, Selectable, Updateable } from 'kysely';
import type { Dialect } from '../db/connection.ts';
import type { Database, Db } from '../db/schema.ts';

/**
 * The columns every durable outbox table shares (mail_outbox, webhook_outbox): the schedule, the lease
 * a worker holds while it delivers, and the outcome. The queries below run on any such table.
 */
export interface LeasedColumns {
  id: Generated<number>;
  /** What to deliver; wiped once delivered or given up. */
  payload: string;
  attempts: number;
  available_at: number;
  locked_until: number | null;
  sent_at: number | null;
  /** Set when delivery was given up. */
  failed_at: number | null;
  /** Why the last attempt failed; never message content or secrets. */
  last_error: string | null;
  created_at: number;
}

export type OutboxTable = {
  [T in keyof Database]: Database[T] extends LeasedColumns ? T : never;
}[keyof Database];

export type LeasedRow = Selectable<LeasedColumns>;

/** Columns a table has beyond the shared ones, written with an outcome (webhook_outbox.last_status). */
export type ExtraColumns = Readonly<Record<string, string | number | null>>;

/** Claims only rows whose `column` holds `value` (a webhook endpoint's own queue). */
export interface ClaimScope {
  readonly column: string;
  readonly value: string;
}

// Kysely cannot follow a table name that is a type parameter (as in db/portable.ts): the queries run
// on this one-table view, and the signatures keep the callers typed.
type Loose = Kysely<{ outbox: LeasedColumns }>;
const loose = (db: Db) => db as unknown as Loose;
const as = (table: OutboxTable) => table as unknown as 'outbox';

const due = (now: number) => (eb: ExpressionBuilder<{ outbox: LeasedColumns }, 'outbox'>) =>
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
export async function claimDueRows<T extends OutboxTable>(
  db: Kysely<Database>,
  dialect: Dialect,
  table: T,
  now: number,
  leaseMs: number,
  limit: number,
  scope?: ClaimScope,
): Promise<Selectable<Database[T]>[]> {
  const name = as(table);
  // The scope's column is not one of the shared ones: named through the one-table view.
  const inScope = scope ? ([scope.column as 'payload', '=', scope.value] as const) : null;
  const lease = (eb: ExpressionBuilder<{ outbox: LeasedColumns }, 'outbox'>) => ({
    locked_until: now + leaseMs,
    attempts: eb('attempts', '+', 1),
  });
  const candidates = (from: Loose) => {
    const query = from.selectFrom(name).select('id').where(due(now));
    return (inScope ? query.where(...inScope) : query).orderBy('available_at').orderBy('id').limit(limit);
  };
  let rows: LeasedRow[];
  if (dialect === 'mysql') {
    // READ COMMITTED: InnoDB then lets go of rows its scan examined but the WHERE refused (another
    // endpoint's, a row not yet due) at once; under REPEATABLE READ it would hold them to the end of the
    // transaction, and a concurrent claim would SKIP them as locked although nobody claimed them.
    rows = await db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        const ids = (await candidates(loose(trx)).forUpdate().skipLocked().execute()).map((row) => row.id);
        if (ids.length === 0) return [];
        await loose(trx).updateTable(name).set(lease).where('id', 'in', ids).execute();
        return loose(trx).selectFrom(name).selectAll().where('id', 'in', ids).orderBy('id').execute();
      });
  } else if (dialect === 'postgres') {
    // A MATERIALIZED CTE runs the locking SELECT exactly once: as a plain `IN (subquery)` the planner
    // may rescan it per row, and with SKIP LOCKED each rescan can see other rows, so one claim could
    // take more than `limit` rows (and starve a concurrent claim).
    rows = await loose(db)
      .with(
        (cte) => cte('claim').materialized(),
        (from) =>
          candidates(from as Loose)
            .forUpdate()
            .skipLocked(),
      )
      .updateTable(name)
      .set(lease)
      .where('id', 'in', (eb) => eb.selectFrom('claim').select('claim.id'))
      .where(due(now))
      .returningAll()
      .execute();
  } else {
    rows = await loose(db)
      .updateTable(name)
      .set(lease)
      .where('id', 'in', candidates(loose(db)))
      .where(due(now))
      .returningAll()
      .execute();
  }
  return rows.sort((a, b) => a.id - b.id) as unknown as Selectable<Database[T]>[];
}

/** An update of a row this worker claimed: it applies only while the lease is still ours. */
async function updateClaimed(
  db: Db,
  table: OutboxTable,
  row: LeasedRow,
  set: Record<string, unknown>,
): Promise<boolean> {
  const result = await loose(db)
    .updateTable(as(table))
    .set(set as Updateable<LeasedColumns>)
    .where('id', '=', row.id)
    .where('locked_until', '=', row.locked_until)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Finished, delivered or given up: the payload is wiped (it may hold a reset link or personal data)
 * unless `set` keeps it; the row stays a while for operators.
 */
function finish(db: Db, table: OutboxTable, row: LeasedRow, set: Record<string, unknown>): Promise<boolean> {
  return updateClaimed(db, table, row, { payload: '', locked_until: null, ...set });
}

export function markSent(db: Db, table: OutboxTable, row: LeasedRow, now: number, extra: ExtraColumns = {}) {
  return finish(db, table, row, { sent_at: now, last_error: null, ...extra });
}

/** Given up: kept with its error. `extra` may keep the payload (a webhook can be retried from the panel). */
export async function markFailed(
  db: Db,
  table: OutboxTable,
  row: LeasedRow,
  now: number,
  error: string,
  extra: ExtraColumns = {},
): Promise<void> {
  await finish(db, table, row, { failed_at: now, last_error: error, ...extra });
}

export async function scheduleRetry(
  db: Db,
  table: OutboxTable,
  row: LeasedRow,
  availableAt: number,
  error: string,
  extra: ExtraColumns = {},
): Promise<void> {
  await updateClaimed(db, table, row, {
    ...extra,
    available_at: availableAt,
    locked_until: null,
    last_error: error,
  });
}

/** Hands unattempted rows back (a stopping worker), without counting the claim as an attempt. */
export async function releaseRows(db: Db, table: OutboxTable, rows: readonly LeasedRow[]): Promise<void> {
  for (const row of rows) {
    await loose(db)
      .updateTable(as(table))
      .set((eb) => ({ locked_until: null, attempts: eb('attempts', '-', 1) }))
      .where('id', '=', row.id)
      .where('locked_until', '=', row.locked_until)
      .execute();
  }
}

/** Deletes finished rows (sent or given up) older than `before`; returns how many. */
export async function pruneFinishedRows(db: Db, table: OutboxTable, before: number): Promise<number> {
  const result = await loose(db)
    .deleteFrom(as(table))
    .where((eb) =>
      eb.or([
        eb.and([eb('sent_at', 'is not', null), eb('sent_at', '<', before)]),
        eb.and([eb('failed_at', 'is not', null), eb('failed_at', '<', before)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Rows neither delivered nor given up (the `*_outbox_pending` gauges). */
export async function countPending(db: Db, table: OutboxTable): Promise<number> {
  const row = await loose(db)
    .selectFrom(as(table))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('sent_at', 'is', null)
    .where('failed_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
