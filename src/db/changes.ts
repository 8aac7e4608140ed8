/**
 * Whether committed data may have changed since a given moment, answered cheaply enough to ask on
 * every request. It is what lets the per-request lookups (a token, a user, a session by its key) be
 * kept in memory without ever serving a revoked token or a disabled user: a kept answer is used only
 * while `version()` still returns the number it was kept under.
 */
export interface ChangeTracker {
  /**
   * A number that changes once any commit, by this process or another one, may have changed data.
   * null: this database cannot tell (nothing may be kept).
   */
  version(): number | null;
  /**
   * Marks the start of an HTTP request: version() calls made afterwards account for every commit
   * that completed before this call, so a revocation is seen by the next request, never later.
   */
  observe(): void;
  /** Reports that this process ran a statement that may have written (a query through Kysely). */
  wrote(): void;
}

/** PostgreSQL: other instances write without telling us, and asking costs a round trip. Keep nothing. */
export const untracked: ChangeTracker = {
  version: () => null,
  observe() {},
  wrote() {},
};

/**
 * SQLite: `PRAGMA data_version` changes when another connection (the CLI, a second process on the
 * same file) commits; our own connection's writes are counted by `wrote()`. Reading the pragma takes
 * a read transaction (two file-lock system calls), so it is read only when a kept answer is wanted:
 * at the first lookup after a request began (`observe()` only notes that one did), and otherwise at
 * most once per event-loop turn, so work outside a request (the outbox worker) sees every commit made
 * before the turn began. A request that needs no lookup (/health, assets) reads nothing.
 */
export class SqliteChangeTracker implements ChangeTracker {
  #counter = 0;
  #dataVersion: number | null = null;
  /** A request began since the last read: the next version() must read again. */
  #requestBegan = false;
  #readThisTurn = false;
  readonly #endTurn = () => {
    this.#readThisTurn = false;
  };

  /** `readDataVersion` returns null when it cannot read a current value. */
  constructor(private readonly readDataVersion: () => number | null) {}

  version(): number {
    if (this.#requestBegan || !this.#readThisTurn) this.#read();
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
