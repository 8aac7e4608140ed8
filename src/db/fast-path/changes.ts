/**
 * Whether committed data may have changed since a given moment, answered cheaply enough to ask on
 * every request. It is what lets the per-request lookups (a token, a user, a session by its key) be
 * kept in memory without ever serving a revoked token or a disabled user: a kept answer is used only
 * while `version()` still returns the number it was kept under.
 */
export interface ChangeTracker {
  /**
   * A number that changes once any commit, by this process or another one, may have changed data;
   * a promise of it when it must first be read. null: this database cannot tell (keep nothing).
   */
  version(): number | Promise<number> | null;
  /**
   * The number as last read, without reading: enough to tell whether this process wrote since a
   * version was taken (another process's commit only ever makes a loaded answer newer, never older).
   */
  lastVersion(): number | null;
  /**
   * Marks the start of an HTTP request: version() calls made afterwards account for every commit
   * that completed before this call, so a revocation is seen by the next request, never later.
   */
  observe(): void;
  /** Reports that this process ran a statement that may have written (a query through Kysely). */
  wrote(): void;
}

/** PostgreSQL, MySQL: other instances write without telling us, and asking costs a round trip. Keep nothing. */
export const untracked: ChangeTracker = {
  version: () => null,
  lastVersion: () => null,
  observe() {},
  wrote() {},
};

/**
 * SQLite: `PRAGMA data_version` changes when another connection (the CLI, a second process on the
 * same file) commits; our own connection's writes are counted by `wrote()`. Reading the pragma takes
 * a read transaction (two file-lock system calls), the largest item of a kept lookup, so it is read
 * only when a kept answer is wanted and shared as widely as freshness allows:
 *
 * - Requests: `observe()` only notes that one began. The first kept lookup after that waits for one
 *   read made once the event loop has taken in every request that is ready (`setImmediate` runs after
 *   the poll phase), so one read serves all the requests that arrived together, and it is made after
 *   each of them began: none can see older data than what was committed before it arrived.
 * - Later lookups of those requests reuse that read while no other request has begun: it was made after
 *   each of them began.
 * - Work outside any request (nothing in the service today; tests, a plugin's timer): reuses a read of
 *   this or the previous event-loop turn, else reads. It has no arrival to be ordered against, and it
 *   still sees our own writes at once.
 *
 * A request that needs no lookup (/health, assets) reads nothing.
 */
export class SqliteChangeTracker implements ChangeTracker {
  #counter = 0;
  #dataVersion: number | null = null;
  /** A request began since the last read: the next version() must read again. */
  #requestBegan = false;
  #readThisTurn = false;
  /** The read that the requests of this poll phase wait for. */
  #batch: Promise<number> | null = null;
  readonly #endTurn = () => {
    this.#readThisTurn = false;
  };
  readonly #readBatch = (resolve: (version: number) => void) => {
    setImmediate(() => {
      this.#batch = null;
      this.#read();
      resolve(this.#counter);
    });
  };

  /** `readDataVersion` returns null when it cannot read a current value. */
  constructor(private readonly readDataVersion: () => number | null) {}

  version(): number | Promise<number> {
    if (this.#requestBegan) {
      this.#batch ??= new Promise(this.#readBatch);
      return this.#batch;
    }
    if (!this.#readThisTurn) this.#read();
    return this.#counter;
  }

  lastVersion(): number {
    return this.#counter;
  }

  observe(): void {
    this.#requestBegan = true;
  }

  wrote(): void {
    this.#counter++;
  }

  #read(): void {
    let dataVersion: number | null;
    try {
      dataVersion = this.readDataVersion();
    } catch {
      dataVersion = null;
    }
    if (dataVersion === null) {
      // The database cannot answer now (closed, I/O error, or a transaction holds the connection and
      // would show its own snapshot): nothing kept may be trusted, and the next call reads again.
      // Lookups load — behind the transaction — and fail or succeed through their own queries.
      this.#dataVersion = null;
      this.#counter++;
      return;
    }
    this.#requestBegan = false;
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      this.#counter++;
    }
    if (!this.#readThisTurn) {
      this.#readThisTurn = true;
      setImmediate(this.#endTurn);
    }
  }
}
