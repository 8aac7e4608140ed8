import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from '../schema.ts';

/**
 * A query that is built and compiled once per database handle, then run with new parameters.
 * Kysely otherwise rebuilds its immutable query tree and compiles it to SQL on every call, which on
 * the per-request lookups (token, user and session by key) cost more than the lookup itself.
 * (better-sqlite3 statements are cached by SQL text in sqlite.ts; on PostgreSQL and MySQL the
 * compiled lookups run as named / server-side prepared statements, server.ts.)
 *
 * `build` receives stand-in values; the returned function takes the real ones in the order the
 * query binds them.
 */
/** Runs a compiled SELECT synchronously when that is safe; undefined means "use Kysely". */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

/**
 * Runs a compiled SELECT on a server database without Kysely's executor, as a prepared statement
 * (`name` is unique per query text). `split`: the query selects `a.*, b.*` of two tables; each row
 * comes back as the pair of their rows, the second undefined when the outer join found none.
 */
export interface ServerReads {
  rows(name: string, sql: string, parameters: readonly unknown[]): Promise<unknown[]>;
  pairs(name: string, sql: string, parameters: readonly unknown[]): Promise<[unknown, unknown][]>;
}

const directReads = new WeakMap<Db, DirectRead>();
const serverReads = new WeakMap<Db, ServerReads>();

/**
 * SQLite's handle registers a synchronous reader for its root Kysely instance (never for a
 * transaction, whose queries must stay on its own turn): a point lookup then skips Kysely's
 * executor and driver round trips, about half of its cost.
 */
export function registerDirectReads(db: Db, read: DirectRead): void {
  directReads.set(db, read);
}

/** PostgreSQL and MySQL: the root Kysely instance's compiled lookups go straight to the pool. */
export function registerServerReads(db: Db, reads: ServerReads): void {
  serverReads.set(db, reads);
}

let statements = 0;

function compiler<Row, Args extends unknown[]>(
  build: (db: Db, ...standIns: Args) => Compilable<Row>,
  standIns: Args,
) {
  const compiled = new WeakMap<Db, CompiledQuery<Row>>();
  return (db: Db, args: Args): CompiledQuery<Row> => {
    let query = compiled.get(db);
    if (query === undefined) {
      query = build(db, ...standIns).compile();
      if (query.parameters.length !== args.length) {
        throw new Error(`Prepared query binds ${query.parameters.length} values, got ${args.length}`);
      }
      compiled.set(db, query);
    }
    return query;
  };
}

export function preparedQuery<Row, Args extends unknown[]>(
  build: (db: Db, ...standIns: Args) => Compilable<Row>,
  ...standIns: Args
): (db: Db, ...args: Args) => Promise<Row[]> {
  const compile = compiler(build, standIns);
  const name = `gatehouse_${++statements}`;
  return async (db, ...args) => {
    const query = compile(db, args);
    const rows = directReads.get(db)?.(query.sql, args);
    if (rows !== undefined) return rows as Row[];
    const server = serverReads.get(db);
    if (server !== undefined) return (await server.rows(name, query.sql, args)) as Row[];
    const result = await db.executeQuery<Row>({ ...query, parameters: args });
    return result.rows;
  };
}

/**
 * A prepared `select a.*, b.* from a left join b …` that gives each table's row separately: one
 * round trip for two point lookups. Only server databases run it (SQLite's lookups are kept and
 * read synchronously, where a join saves nothing); elsewhere it answers undefined, and the caller
 * uses its two plain lookups.
 */
export function preparedPairQuery<A, B, Args extends unknown[]>(
  build: (db: Db, ...standIns: Args) => Compilable<unknown>,
  ...standIns: Args
): (db: Db, ...args: Args) => Promise<[A, B | undefined][]> | undefined {
  const compile = compiler(build, standIns);
  const name = `gatehouse_${++statements}`;
  return (db, ...args) => {
    const server = serverReads.get(db);
    if (server === undefined) return undefined;
    const query = compile(db, args);
    return server.pairs(name, query.sql, args) as Promise<[A, B | undefined][]>;
  };
}
