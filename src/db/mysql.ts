import { Kysely, MysqlAdapter, MysqlDialect, MysqlQueryCompiler, type ReturningNode, sql } from 'kysely';
import { loadMysql2 } from '../lib/packages-on-demand.ts';
import type { DatabaseHandle, WatchDialect } from './connection.ts';
import type { Database } from './schema.ts';

/**
 * Every connection gets the same session settings, whatever the server's defaults are:
 * - READ COMMITTED, PostgreSQL's level. The use cases were written for it (each statement sees what
 *   is committed; conditional UPDATE/DELETE decide races), and REPEATABLE READ's gap locks would turn
 *   "update, else insert" of two concurrent requests into deadlocks.
 * - strict mode: a value too long for its column is an error, never silently cut (as elsewhere).
 * - no NO_BACKSLASH_ESCAPES: mysql2 escapes parameters with backslashes on the client, so a server
 *   configured with that mode would read `\'` as the end of a string. Setting the mode here keeps
 *   parameter escaping correct on any server.
 */
const SESSION_SETUP = [
  'set session transaction isolation level read committed',
  "set session sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
];

export function openMysql(url: string, watch: WatchDialect = (dialect) => dialect): DatabaseHandle {
  const pool = loadMysql2().createPool({
    uri: url,
    connectionLimit: 10,
    connectTimeout: 5000,
    // utf8mb4 for everything sent and received: 4-byte characters such as emoji survive.
    charset: 'UTF8MB4_GENERAL_CI',
    // BIGINT (epoch milliseconds, COUNT(*)) as numbers, like the other dialects; ours fit in a double.
    supportBigNumbers: false,
    decimalNumbers: true,
  });
  pool.on('connection', (connection) => {
    // Queued on the new connection before anything Kysely sends through it.
    for (const statement of SESSION_SETUP) {
      // A connection that could not be set up must not serve a query: it is dropped, and that query fails.
      connection.query(statement, (error) => {
        if (error) connection.destroy();
      });
    }
  });
  const db = new Kysely<Database>({ dialect: watch(new GatehouseMysqlDialect({ pool })) });
  return {
    db,
    dialect: 'mysql',
    async ping() {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

class GatehouseMysqlDialect extends MysqlDialect {
  override createAdapter() {
    return new DatabaseScopedLockAdapter();
  }

  override createQueryCompiler() {
    return new NoReturningCompiler();
  }
}

/**
 * Kysely's migration lock is one GET_LOCK name for the whole server, so two deployments (or two test
 * databases) on one server would wait for each other. The name here is scoped to the current
 * database (hashed: lock names are limited to 64 characters). GET_LOCK answers 0 when it timed out
 * rather than failing, so that is checked: migrating without the lock is what it exists to prevent.
 */
class DatabaseScopedLockAdapter extends MysqlAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    const { rows } = await sql<{
      locked: number | null;
    }>`select get_lock(concat('gatehouse:migrate:', md5(database())), 3600) as locked`.execute(db);
    if (Number(rows[0]?.locked) !== 1) throw new Error('Could not take the migration lock within an hour');
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select release_lock(concat('gatehouse:migrate:', md5(database())))`.execute(db);
  }
}

/**
 * MariaDB understands INSERT … RETURNING, MySQL 8 does not. Refusing RETURNING at compile time makes
 * a query that would only work on MariaDB fail in the tests (which run on MariaDB) instead of in
 * production on MySQL; db/portable.ts has the forms that work on both.
 */
class NoReturningCompiler extends MysqlQueryCompiler {
  protected override visitReturning(_node: ReturningNode): void {
    throw new Error('RETURNING is not available on MySQL: use the helpers of src/db/portable.ts');
  }
}
