import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.ts';
import { type ChangeTracker, SqliteChangeTracker, untracked } from './fast-path/changes.ts';
import { registerDirectReads } from './fast-path/prepared.ts';
import { FairSqliteDialect } from './fast-path/sqlite-driver.ts';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Whether committed data may have changed: lets per-request lookups be kept (db/fast-path/kept-lookup.ts). */
  readonly changes: ChangeTracker;
  /** Cheap liveness probe for /ready. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// int8 (COUNT(*), bigint timestamps) arrives as a string by default; our values fit in a double.
pg.types.setTypeParser(20, (value) => Number(value));

export function openDatabase(config: DatabaseConfig): DatabaseHandle {
  return config.dialect === 'sqlite' ? openSqlite(config.filename) : openPostgres(config.url);
}

function openSqlite(filename: string): DatabaseHandle {
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  const sqlite = new SqliteDatabase(filename);
  // WAL lets readers run during a write; NORMAL sync is durable across a process crash (kill -9),
  // which is the failure a service sees, and far faster than FULL.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
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
  const db = new Kysely<Database>({ dialect });
  // Per-request point lookups (db/fast-path/prepared.ts) run at once while no query or transaction holds the
  // connection, instead of a round trip through Kysely's executor and driver.
  registerDirectReads(db, (sql, parameters) =>
    dialect.whenIdle(() => {
      const statement = statements(sql);
      return statement.reader ? (statement.all(parameters) as unknown[]) : undefined;
    }),
  );
  return {
    db,
    dialect: 'sqlite',
    changes,
    async ping() {
      sqlite.prepare('select 1').get();
    },
    close: () => db.destroy(),
  };
}

/**
 * Kysely prepares every statement anew; preparing costs more than running a primary-key lookup.
 * Statements are cached by their SQL text (bounded, least recently added evicted first); Kysely gets
 * this `prepare` through a proxy of the database.
 */
function statementCache(sqlite: SqliteDatabase.Database, limit = 500) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return (source: string): SqliteDatabase.Statement => {
    let statement = cache.get(source);
    if (statement === undefined) {
      statement = sqlite.prepare(source);
      if (cache.size >= limit) cache.delete(cache.keys().next().value as string);
      cache.set(source, statement);
    }
    return statement;
  };
}

function openPostgres(url: string): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    changes: untracked,
    async ping() {
      await pool.query('select 1');
    },
    close: () => db.destroy(),
  };
}
