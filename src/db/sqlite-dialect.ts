import {
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type Dialect as KyselyDialect,
  type QueryCompiler,
  SqliteAdapter,
  type SqliteDialectConfig,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { Semaphore } from '../lib/semaphore.ts';

/**
 * Kysely's SQLite dialect with a fair queue in front of its one connection.
 *
 * Why: Kysely's driver guards the connection with a mutex whose waiters all await one promise; each
 * release wakes every one of them, one takes the connection and the rest go back to sleep. With n
 * requests waiting that is n wake-ups per query, n² per burst — under the bench's 100 connections the
 * session page (three queries a request) spent more time waking waiters than querying. The queue
 * hands the connection to the longest waiter only (lib/semaphore.ts), so Kysely's own mutex is
 * never contended. Everything else is Kysely's driver, unchanged.
 */
export class FairSqliteDialect implements KyselyDialect {
  constructor(readonly config: SqliteDialectConfig) {}

  createDriver(): Driver {
    return new FairSqliteDriver(new SqliteDriver(this.config));
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}

class FairSqliteDriver implements Driver {
  readonly #queue = new Semaphore(1);

  constructor(readonly inner: SqliteDriver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#queue.acquire();
    return this.inner.acquireConnection();
  }

  async releaseConnection(): Promise<void> {
    await this.inner.releaseConnection();
    this.#queue.release();
  }

  beginTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.beginTransaction(connection);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  savepoint: Driver['savepoint'] = (connection, name, compile) =>
    this.inner.savepoint(connection, name, compile);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (connection, name, compile) =>
    this.inner.rollbackToSavepoint(connection, name, compile);
  releaseSavepoint: Driver['releaseSavepoint'] = (connection, name, compile) =>
    this.inner.releaseSavepoint(connection, name, compile);

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
