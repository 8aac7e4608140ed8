import { existsSync } from 'node:fs';
import { Kysely, SqliteDialect } from 'kysely';
import type { DatabaseConfig } from '../../config.ts';
import { type Dialect, openDatabase } from '../../db/connection.ts';
import type { Database } from '../../db/schema.ts';
import { openSqliteKeptStatements } from '../../db/sqlite-handles.ts';

export interface ImportTarget {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  close(): Promise<void>;
}

/**
 * Gatehouse's own database as `import:laravel --dry-run` sees it: a dry run writes nothing anywhere
 * (docs/guides/moving-from-laravel.md), so it is only read, and never created.
 *
 * A SQLite file that does not exist yet stays so (nor is its folder made): the run compares with an
 * empty in-memory database instead, as with any database Gatehouse never used. An existing file is
 * opened without the server's settings (journal_mode = WAL would rewrite the header of a file not yet
 * in WAL), and not read-only either: a read-only connection to a WAL file leaves -wal and -shm files
 * behind, which the last read-write connection removes as it closes. Reads write nothing to the file.
 */
export function openDryRunTarget(config: DatabaseConfig): ImportTarget {
  if (config.dialect !== 'sqlite') return openDatabase(config);
  const exists = config.filename !== ':memory:' && config.filename !== '' && existsSync(config.filename);
  // fileMustExist: a file removed since existsSync is an error, not a new empty database.
  const sqlite = openSqliteKeptStatements(exists ? config.filename : ':memory:', { fileMustExist: true });
  sqlite.exec('pragma busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}
