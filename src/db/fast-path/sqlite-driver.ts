import {
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  SqliteDialect,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';
import { Semaphore } from '../../lib/semaphore.ts';

type CompileQuery = QueryCompiler['compileQuery'];

/**
 * Kysely's SQLite dialect with a fair turn-taking on the one connection. Kysely's own driver wakes
 * every waiting query each time the connection is released (all of them await one promise, one wins,
 * the rest wait again): with 50 requests in flight that woke ~50 continuations per query and doubled
 * the cost of a primary-key lookup. Here each release wakes exactly the next query in line.
 */
export class FairSqliteDialect extends SqliteDialect {
  #driver: FairDriver | undefined;

  /** `released` runs each time a query or transaction gives the connection back. */
  constructor(
    config: SqliteDialectConfig,
    private readonly released: () => void = () => {},
  ) {
    super(config);
  }

  override createDriver(): Driver {
    this.#driver = new FairDriver(super.createDriver(), this.released);
    return this.#driver;
  }

  /**
   * Runs `read` at once when no query or transaction holds the connection, else returns undefined
   * (the caller then queues through Kysely). Equivalent to taking a turn: the read is synchronous, so
   * nothing can start in between, and with no transaction open it sees only committed rows.
   */
  whenIdle<T>(read: () => T): T | undefined {
    return this.#driver?.idle ? read() : undefined;
  }
}

class FairDriver implements Driver {
  readonly #turns = new Semaphore(1);

  constructor(
    private readonly inner: Driver,
    private readonly released: () => void,
  ) {}

  get idle(): boolean {
    return this.#turns.active === 0;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#turns.acquire();
    try {
      // Never waits: only the holder of the turn gets this far.
      return await this.inner.acquireConnection();
    } catch (error) {
      this.#turns.release();
      throw error;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.releaseConnection(connection);
    } finally {
      this.released();
      this.#turns.release();
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await this.inner.savepoint!(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery) {
    await this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery) {
    await this.inner.releaseSavepoint!(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
