import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from '../schema.ts';

/**
 * A query that is built and compiled once per database handle, then run with new parameters.
 * Kysely otherwise rebuilds its immutable query tree and compiles it to SQL on every call, which on
 * the per-request lookups (token, user and session by key) cost more than the lookup itself.
 * (better-sqlite3 statements are cached by SQL text in connection.ts; PostgreSQL and MySQL get the same text.)
 *
 * `build` receives stand-in values; the returned function takes the real ones in the order the
 * query binds them.
 */
/** Runs a compiled SELECT synchronously when that is safe; undefined means "use Kysely". */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

const directReads = new WeakMap<Db, DirectRead>();

/**
 * SQLite's handle registers a synchronous reader for its root Kysely instance (never for a
 * transaction, whose queries must stay on its own turn): a point lookup then skips Kysely's
 * executor and driver round trips, about half of its cost.
 */
export function registerDirectReads(db: Db, read: DirectRead): void {
  directReads.set(db, read);
}

export function preparedQuery<Row, Args extends unknown[]>(
  build: (db: Db, ...standIns: Args) => Compilable<Row>,
  ...standIns: Args
): (db: Db, ...args: Args) => Promise<Row[]> {
  const compiled = new WeakMap<Db, CompiledQuery<Row>>();
  return async (db, ...args) => {
    let query = compiled.get(db);
    if (query === undefined) {
      query = build(db, ...standIns).compile();
      if (query.parameters.length !== args.length) {
        throw new Error(`Prepared query binds ${query.parameters.length} values, got ${args.length}`);
      }
      compiled.set(db, query);
    }
    const rows = directReads.get(db)?.(query.sql, args);
    if (rows !== undefined) return rows as Row[];
    const result = await db.executeQuery<Row>({ ...query, parameters: args });
    return result.rows;
  };
}
