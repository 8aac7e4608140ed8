import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  OperationNode,
  QueryCompiler,
  QueryResult,
  RootOperationNode,
  TransactionSettings,
} from 'kysely';
import { INSERT } from './cache-store.ts';

/** Where the writes of a watched database are reported: the names of the tables they changed. */
export interface WriteSink {
  /**
   * Runs on the writing connection right after the statement, inside its transaction if one is open
   * (PostgreSQL: NOTIFY there is sent by the server when, and only if, the transaction commits).
   */
  inConnection?(connection: DatabaseConnection, tables: readonly string[]): Promise<void>;
  /**
   * After the statement's commit (its own, or its transaction's); the statement (or the commit)
   * resolves only after what this returns, so the writing request is not answered before it.
   */
  committed(tables: readonly string[]): Promise<void> | void;
  /** Whether a plain INSERT into `table` must be reported (cache-store.ts insertsInto). */
  insertsMatter(table: string): boolean;
}

/**
 * The dialect `inner`, with every statement that may change a cached row reported to `sink`, by
 * table, at its commit. Watching the driver rather than the use cases is what makes "every write is
 * heard" hold for every write path — the CLI, the panel, imports, the next feature.
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
  pending: string[] = [];

  constructor(
    readonly inner: DatabaseConnection,
    private readonly sink: WriteSink,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(compiled);
    const keys = tablesChangedBy(compiled.query, this.sink.insertsMatter);
    if (keys.length > 0) {
      await this.sink.inConnection?.(this.inner, keys);
      if (this.inTransaction) this.pending.push(...keys);
      else await this.sink.committed(keys);
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
      if (keys.length > 0) await this.sink.committed(keys);
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

/**
 * The tables a statement may change rows of. A plain INSERT is reported as `<table>:insert`, and only
 * where `insertsMatter` says so: absent answers are never cached (cache-store.ts), so a new row matters
 * only to a lookup whose present answer it changes (a user's memberships). An upsert may overwrite a row:
 * it counts as a change. A raw statement that looks like a write counts for every table it names.
 */
export function tablesChangedBy(
  node: RootOperationNode,
  insertsMatter: (table: string) => boolean,
): string[] {
  switch (node.kind) {
    case 'UpdateQueryNode':
      return tableNames(node.table);
    case 'DeleteQueryNode':
      return node.from.froms.flatMap(tableNames);
    case 'InsertQueryNode': {
      const tables = tableNames(node.into);
      if (node.onConflict?.updates || node.onDuplicateKey) return tables;
      return tables.filter(insertsMatter).map((table) => `${table}${INSERT}`);
    }
    case 'RawNode': {
      const text = node.sqlFragments.join(' ');
      if (!/\b(update|delete|insert|replace|truncate|merge)\b/i.test(text)) return [];
      return [...text.matchAll(/\b(?:update|from|into|table)\s+[`"]?(\w+)/gi)].map((match) => match[1]!);
    }
    default:
      return [];
  }
}

function tableNames(node: OperationNode | undefined): string[] {
  if (node?.kind === 'AliasNode') return tableNames((node as unknown as { node: OperationNode }).node);
  if (node?.kind !== 'TableNode') return [];
  return [(node as unknown as { table: { identifier: { name: string } } }).table.identifier.name];
}
