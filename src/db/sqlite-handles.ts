import SqliteDatabase from 'better-sqlite3';

/*
 * Why no better-sqlite3 object may be left to the garbage collector.
 *
 * better-sqlite3 12 wraps every Database and Statement in node::ObjectWrap, a class compiled into the
 * addon from Node's headers. In the headers of Node 24.19 and later, its constructor registers an
 * environment cleanup hook and its destructor removes it, and removing one CHECKs that a Node context is
 * current (24.18's and 22's headers have no such hook). The destructor runs when V8 reclaims the
 * wrapper, inside a garbage collection; one triggered by an ordinary allocation in JavaScript runs it
 * with no context entered, and the process aborts: `node::RemoveEnvironmentCleanupHook … Assertion
 * failed: (env) != nullptr` from `Statement::~Statement()` (nodejs/node#65446). Node 20 and 22 are not
 * affected. better-sqlite3 13 no longer uses ObjectWrap, but it needs Node-API 10 (Node ≥ 22.14), so it
 * cannot be used while Node 20 is supported.
 *
 * So every better-sqlite3 object of this process stays reachable until the process exits, and Node's
 * cleanup hooks free them at teardown, where the environment is alive. That stays small because a
 * connection prepares each statement once and keeps it (db/connection.ts), and close() finalizes the
 * statements in SQLite, leaving only their wrappers behind.
 */
const untilExit: unknown[] = [];

/**
 * Opens a better-sqlite3 database whose Database and Statement objects are never reclaimed before the
 * process exits. prepare() hands out one statement per SQL text, prepared once and kept: Kysely
 * prepares every query anew, and the texts are the query shapes of this code base (values are
 * parameters), a bounded set. That also spares the prepare itself, which costs more than running a
 * primary-key lookup. `options` are better-sqlite3's own (readonly, fileMustExist).
 */
export function openSqliteFile(filename: string, options?: SqliteDatabase.Options): SqliteDatabase.Database {
  const database = new SqliteDatabase(filename, options);
  untilExit.push(database);
  const prepare = database.prepare.bind(database);
  const statements = new Map<string, SqliteDatabase.Statement>();
  database.prepare = ((source: string) => {
    let statement = statements.get(source);
    if (statement === undefined) {
      statement = prepare(source);
      statements.set(source, statement);
      untilExit.push(statement);
    }
    return statement;
  }) as typeof database.prepare;
  // The library's pragma() prepares a statement of its own and drops it; this one keeps it.
  database.pragma = ((source: string, options?: SqliteDatabase.PragmaOptions) => {
    const statement = database.prepare(`pragma ${source}`);
    // A pragma that sets something may return no rows at all (synchronous = OFF): run it, as the library does.
    if (!statement.reader) {
      statement.run();
      return options?.simple ? undefined : [];
    }
    return options?.simple ? statement.pluck(true).get() : statement.pluck(false).all();
  }) as typeof database.pragma;
  return database;
}

/**
 * openSqliteFile for Kysely over a file read in batches (import:laravel): Kysely prepares every query
 * anew, and each prepare() is kept until the process exits; here a query text gets its kept statement
 * back, so an import prepares each of its few query shapes once, however many batches it reads (values
 * are parameters).
 */
export function openSqliteKeptStatements(
  filename: string,
  options?: SqliteDatabase.Options,
): SqliteDatabase.Database {
  const sqlite = openSqliteFile(filename, options);
  const prepared = new Map<string, SqliteDatabase.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    let statement = prepared.get(source);
    if (statement === undefined) {
      statement = prepare(source);
      prepared.set(source, statement);
    }
    return statement;
  }) as typeof sqlite.prepare;
  return sqlite;
}
