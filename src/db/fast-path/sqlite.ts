import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { SqliteChangeTracker } from './changes.ts';
import { registerDirectReads } from './prepared.ts';
import { FairSqliteDialect } from './sqlite-driver.ts';

/**
 * Everything the SQLite connection does for speed, in one place (see README.md here):
 * - a statement cache in front of better-sqlite3's `prepare` (Kysely prepares every query anew);
 * - a driver that hands the one connection to the next query in line only (sqlite-driver.ts);
 * - the change tracker that lets per-request lookups be kept (changes.ts): our own writes are
 *   counted when a statement that may write gives the connection back, other connections' commits
 *   show in `PRAGMA data_version`;
 * - direct reads: compiled point lookups (prepared.ts) run synchronously while the connection is idle.
 */
export function sqliteFastPath(sqlite: SqliteDatabase.Database) {
  const statements = statementCache(sqlite);
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  // Inside a transaction the pragma answers for the transaction's snapshot, not for what is committed.
  const changes = new SqliteChangeTracker(() =>
    sqlite.inTransaction ? null : (dataVersion.get() as number),
  );
  // Kysely prepares each statement right before running it: one that may write marks the turn, and
  // the change is reported once the connection is released (after the commit).
  let wrote = false;
  const prepareForKysely = (source: string) => {
    const statement = statements(source);
    if (!statement.readonly) wrote = true;
    return statement;
  };
  const dialect = new FairSqliteDialect(
    {
      database: new Proxy(sqlite, {
        get(target, property, receiver) {
          if (property === 'prepare') return prepareForKysely;
          const value = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    },
    () => {
      if (!wrote) return;
      wrote = false;
      changes.wrote();
    },
  );
  return {
    dialect,
    changes,
    /** Lets `db`'s compiled point lookups skip Kysely's executor while no query holds the connection. */
    directReads(db: Kysely<Database>): void {
      registerDirectReads(db, (sql, parameters) =>
        dialect.whenIdle(() => {
          const statement = statements(sql);
          return statement.reader ? (statement.all(parameters) as unknown[]) : undefined;
        }),
      );
    },
  };
}

/**
 * Kysely prepares every statement anew; preparing costs more than running a primary-key lookup.
 * Statements are cached by their SQL text. Nothing is evicted: an evicted statement could only be left
 * to the garbage collector, which aborts on Node 24 (db/sqlite-handles.ts). The SQL texts are the query
 * shapes of this code base, a bounded set: values are parameters, and the only `in (…)` lists are the
 * fixed audit event groups.
 */
function statementCache(sqlite: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return (source: string): SqliteDatabase.Statement => {
    let statement = cache.get(source);
    if (statement === undefined) {
      statement = sqlite.prepare(source);
      cache.set(source, statement);
    }
    return statement;
  };
}
