import {
  type Generated,
  type Insertable,
  type Kysely,
  MysqlAdapter,
  type Selectable,
  SqliteAdapter,
} from 'kysely';
import { isUniqueViolation } from './errors.ts';
import type { Database, Db } from './schema.ts';

/**
 * The few statements that must be written differently on MySQL/MariaDB, kept in one place.
 * Repositories ask `isMysql(db)` only where a form is missing there: RETURNING (MySQL 8 has none),
 * ON CONFLICT (MySQL has ON DUPLICATE KEY UPDATE, which reports no per-row outcome), and updates
 * whose subquery reads the table being updated.
 */
export function isMysql(db: Db): boolean {
  return db.getExecutor().adapter instanceof MysqlAdapter;
}

/**
 * Whether `SELECT … FOR UPDATE` exists. SQLite has no row locks and needs none: its transactions
 * write one at a time (one connection per process, and the database's write lock across processes).
 */
export function hasRowLocks(db: Db): boolean {
  return !(db.getExecutor().adapter instanceof SqliteAdapter);
}

// Kysely cannot follow a table name that is a type parameter: the helpers run on this one-table view
// of the schema, and their signatures keep the callers typed.
interface AnyTable {
  id: Generated<number>;
}
type Loose = Kysely<{ any_table: AnyTable }>;

/** Tables whose key is an auto-incremented `id`. */
type TableWithId = {
  [T in keyof Database]: Database[T] extends { id: Generated<number> } ? T : never;
}[keyof Database];

/**
 * INSERT that gives back the stored row (defaults filled in). One statement with RETURNING where the
 * database has it; on MySQL the row is read back by the key the insert reports (insertId) — on the
 * same connection when `db` is a transaction, and otherwise after the insert has committed.
 */
export async function insertReturningRow<T extends TableWithId>(
  db: Db,
  table: T,
  values: Insertable<Database[T]>,
): Promise<Selectable<Database[T]>> {
  const loose = db as unknown as Loose;
  const insert = loose.insertInto(table as 'any_table').values(values as Insertable<AnyTable>);
  if (!isMysql(db)) {
    return (await insert.returningAll().executeTakeFirstOrThrow()) as unknown as Selectable<Database[T]>;
  }
  const id = await insertedId(insert.executeTakeFirstOrThrow());
  const row = await loose
    .selectFrom(table as 'any_table')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row as unknown as Selectable<Database[T]>;
}

/** INSERT that gives back only the new `id` (one statement on every dialect). */
export async function insertReturningId<T extends TableWithId>(
  db: Db,
  table: T,
  values: Insertable<Database[T]>,
): Promise<number> {
  const loose = db as unknown as Loose;
  const insert = loose.insertInto(table as 'any_table').values(values as Insertable<AnyTable>);
  if (!isMysql(db)) return (await insert.returning('id').executeTakeFirstOrThrow()).id;
  return insertedId(insert.executeTakeFirstOrThrow());
}

async function insertedId(result: Promise<{ insertId?: bigint }>): Promise<number> {
  const { insertId } = await result;
  if (insertId === undefined) throw new Error('The database reported no id for the inserted row');
  return Number(insertId);
}

/**
 * Runs an INSERT; false when a unique key refused it. For MySQL, which has no per-row outcome of
 * ON CONFLICT DO NOTHING (INSERT IGNORE would also swallow other errors); there a failed statement
 * ends only itself, not the transaction around it. (On PostgreSQL it would abort the transaction:
 * use ON CONFLICT there.)
 */
export async function insertUnlessDuplicate(insert: { execute(): Promise<unknown> }): Promise<boolean> {
  try {
    await insert.execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}
