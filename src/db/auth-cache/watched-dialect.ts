import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { type Invalidation, invalidationsOf } from './invalidations.ts';

/** Where the writes of a watched database are reported. */
export interface WriteSink {
  /**
   * Runs on the writing connection right after the statement, inside its transaction if one is open
   * (PostgreSQL: NOTIFY there is sent by the server when, and only if, the transaction commits).
   */
  inConnection?(connection: DatabaseConnection, keys: readonly Invalidation[]): Promise<void>;
  /** After the statement's commit (its own, or its transaction's). */
  committed(keys: readonly Invalidation[]): void;
}

/**
 * The dialect `inner`, with every statement that may change a cached token, session or user reported
 * to `sink` (invalidations.ts decides which). Watching the driver rather than the use cases is what
 * makes "every write publishes" hold for every write path — the CLI, the panel, imports, the next
 * feature — and lets it know where transactions commit.
 */
export function watchedDialect(inner: Dialect, sink: WriteSink): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createDriver: () => new WatchedDriver(inner.createDriver(), sink),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createIntrospector: (db) => inner.createIntrospector(db),
  };
}

class WatchedConnection implements DatabaseConnection {
  inTransaction = false;
  /** Invalidations of this transaction's statements, applied once it commits. */
  pending: Invalidation[] = [];

  constructor(
    readonly inner: DatabaseConnection,
    private readonly sink: WriteSink,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(compiled);
    const keys = invalidationsOf(compiled.query);
    if (keys.length > 0) {
      await this.sink.inConnection?.(this.inner, keys);
      if (this.inTransaction) this.pending.push(...keys);
      else this.sink.committed(keys);
    }
    return result;
  }

  streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiled, chunkSize);
  }
}

class WatchedDriver implements Driver {
  readonly #wrappers = new WeakMap<DatabaseConnection, WatchedConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly sink: WriteSink,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.#wrappers.get(connection);
    if (wrapper === undefined) {
      wrapper = new WatchedConnection(connection, this.sink);
      this.#wrappers.set(connection, wrapper);
    }
    return wrapper;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const watched = connection as WatchedConnection;
    await this.inner.beginTransaction(watched.inner, settings);
    watched.inTransaction = true;
    watched.pending = [];
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const watched = connection as WatchedConnection;
    const keys = watched.pending;
    watched.inTransaction = false;
    watched.pending = [];
    try {
      await this.inner.commitTransaction(watched.inner);
    } finally {
      // A failed COMMIT may still have committed (the connection died after sending it): drop anyway.
      if (keys.length > 0) this.sink.committed(keys);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const watched = connection as WatchedConnection;
    watched.inTransaction = false;
    watched.pending = [];
    await this.inner.rollbackTransaction(watched.inner);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await this.inner.savepoint?.((connection as WatchedConnection).inner, name, compile);
  }

  // A rolled-back savepoint keeps its statements' invalidations: dropping more than changed is harmless.
  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.rollbackToSavepoint?.((connection as WatchedConnection).inner, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.releaseSavepoint?.((connection as WatchedConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as WatchedConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
