import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, type Dialect as KyselyDialect, PostgresDialect } from 'kysely';
import type { DatabaseConfig } from '../config.ts';
import { loadPg } from '../lib/packages-on-demand.ts';
import { PRIVATE_DIRECTORY, PRIVATE_FILE, tightenFile } from '../lib/private-files.ts';
import { openMysql } from './mysql.ts';
import type { Database } from './schema.ts';
import { SqliteCheckpoints } from './sqlite-checkpoints.ts';
import { FairSqliteDialect } from './sqlite-dialect.ts';
import { openSqliteFile } from './sqlite-handles.ts';

export type Dialect = 'sqlite' | 'postgres' | 'mysql';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Cheap liveness probe for /ready. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Wraps a server database's Kysely dialect (AUTH_CACHE=notify hears writes there: auth/cache/). */
export type WatchDialect = (dialect: KyselyDialect) => KyselyDialect;

export function openDatabase(
  config: DatabaseConfig,
  watch: WatchDialect = (dialect) => dialect,
): DatabaseHandle {
  switch (config.dialect) {
    case 'sqlite':
      return openSqlite(config.filename);
    case 'postgres':
      return openPostgres(config.url, watch);
    case 'mysql':
      return openMysql(config.url, watch);
  }
}

function openSqlite(filename: string): DatabaseHandle {
  const onDisk = filename !== ':memory:' && filename !== '';
  if (onDisk) prepareSqliteFile(filename);
  // Statements are prepared once per SQL text and kept for the life of the process: see
  // db/sqlite-handles.ts for why none may be left to the garbage collector (Node 24 aborts).
  const sqlite = openSqliteFile(filename);
  // WAL lets readers run during a write; NORMAL sync is durable across a process crash (kill -9),
  // which is the failure a service sees, and far faster than FULL. exec() prepares no statement object.
  sqlite.exec('pragma journal_mode = WAL; pragma synchronous = NORMAL');
  // SQLite gives the -wal and -shm files the database file's mode; ones left by an older start are
  // tightened here.
  if (onDisk) for (const suffix of ['-wal', '-shm']) tightenFile(`${filename}${suffix}`);
  sqlite.exec('pragma foreign_keys = ON; pragma busy_timeout = 5000');
  const probe = sqlite.prepare('select 1');
  const db = new Kysely<Database>({ dialect: new FairSqliteDialect({ database: sqlite }) });
  // A busy database copies its WAL back in a thread of its own (db/sqlite-checkpoints.ts).
  const checkpoints = onDisk ? new SqliteCheckpoints(filename, sqlite) : null;
  return {
    db,
    dialect: 'sqlite',
    async ping() {
      probe.get();
    },
    async close() {
      await checkpoints?.close();
      await db.destroy();
    },
  };
}

/**
 * The database file is owner-only (docs/security.md: it holds password hashes and token digests): created
 * empty with mode 0600 before SQLite opens it (SQLite would create it 0644 under the usual umask, and
 * an empty file is a valid new database), an existing one tightened. A missing directory is created
 * 0700; an existing one is the operator's and left as it is.
 */
function prepareSqliteFile(filename: string): void {
  mkdirSync(dirname(filename), { recursive: true, mode: PRIVATE_DIRECTORY });
  try {
    closeSync(openSync(filename, 'wx', PRIVATE_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  tightenFile(filename);
}

function openPostgres(url: string, watch: WatchDialect): DatabaseHandle {
  const pool = new (loadPg().Pool)({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: watch(new PostgresDialect({ pool })) });
  return {
    db,
    dialect: 'postgres',
    async ping() {
      await pool.query('select 1');
    },
    close: () => db.destroy(),
  };
}
