import type SqliteDatabase from 'better-sqlite3';
import { openSqliteFile } from '../../db/sqlite-handles.ts';
import type { CacheStore } from './cache-store.ts';

/**
 * The freshness of a SQLite database file: `PRAGMA data_version`, read on a read-only connection of its
 * own. The number moves whenever another connection commits — and to this connection every other one
 * is "another": the service's own, the CLI's, a second process's — so it answers "has anything been
 * committed since I last looked?" for all of them at once, with no write of ours to track. When it has
 * moved, everything cached goes.
 *
 * A read costs a few microseconds (file locks around a look at the WAL index), so one read serves every
 * lookup that asked before it: made in the check phase that follows (after the event loop has taken in
 * every request that was ready), it comes after each of those lookups began, and none of them can be
 * answered from data older than what was committed before it. (One read per lookup cost 3–7 µs a
 * request under load.) The connection opens on the first read, once the service's own has created the
 * file and turned on WAL; while it cannot answer, nothing cached is served.
 */
export function sqliteFreshness(filename: string, store: () => CacheStore) {
  let connection: SqliteDatabase.Database | null = null;
  let statement: SqliteDatabase.Statement | null = null;
  let seen: number | null = null;
  let asking: Promise<void> | null = null;

  const read = (): number | null => {
    try {
      if (statement === null) {
        connection = openSqliteFile(filename, { readonly: true, fileMustExist: true });
        statement = connection.prepare('pragma data_version').pluck();
      }
      return statement.get() as number;
    } catch {
      return null;
    }
  };
  const ask = (resolve: () => void) => {
    setImmediate(() => {
      asking = null;
      const current = read();
      if (current === null || current !== seen) store().changed();
      seen = current;
      resolve();
    });
  };

  return {
    /** The cache store's `beforeRead`: resolves once the shared read has been made. */
    beforeRead(): Promise<void> {
      asking ??= new Promise(ask);
      return asking;
    },
    close(): void {
      connection?.close();
      connection = null;
      statement = null;
    },
  };
}
