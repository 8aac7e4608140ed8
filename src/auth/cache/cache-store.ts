import { deepFreeze } from '../../lib/deep-freeze.ts';

export interface CachedLookupOptions {
  /** The tables its answers are read from: an UPDATE, DELETE or upsert of any of them drops its entries. */
  readonly tables: readonly string[];
  /**
   * Tables where a new row changes an answer that was present before (a user's list of memberships):
   * an INSERT there drops its entries too. Elsewhere a new row has a new key, and absent answers are
   * never kept, so inserts need not drop anything.
   */
  readonly insertsInto?: readonly string[];
  /** At most this many entries; when full, the oldest goes (default 10,000). */
  readonly limit?: number;
  /** Answers longer than this as JSON are not cached, so the bound in entries is one in bytes too. */
  readonly maxChars?: number;
}

/** The suffix of a change that is a plain INSERT (write-watcher.ts). */
export const INSERT = ':insert';

export interface CacheStoreOptions {
  /** How long an entry may serve at most (null: as long as the source reports no change). */
  readonly maxAgeMs: number | null;
  /** Whether entries are served from the start (a notify channel starts unsubscribed). */
  readonly serving: boolean;
  readonly beforeRead?: () => Promise<void>;
  /**
   * Whether the freshness source has heard every change up to its bound (own-ticks.ts): while
   * it has not, entries are not served (loads still are, and kept).
   */
  readonly current?: () => boolean;
  /** Runs once, before the first read of any lookup. */
  readonly onFirstRead?: () => void;
  readonly now?: () => number;
}

interface Entry {
  readonly value: unknown;
  /** When its load began (performance.now()): the data is at least this fresh. */
  readonly loadedAt: number;
}

/**
 * The entries of every cached lookup of one process, and the rules for using them:
 *
 * - A change to a table (`changed`) drops the entries of every lookup that reads it, and a load that
 *   was in flight meanwhile is not kept: its row may have been read before that change committed.
 * - While `serving` is false (a notify channel not subscribed), nothing is served or kept.
 * - `maxAgeMs`: an entry older than this is not served, however quiet the freshness source is — the
 *   bound on how stale another instance's cache can be when a message is lost (a write past the
 *   service) or, where the source cannot say it is `current`, slow.
 * - `current`: where the source can tell, entries serve only while it has heard every change up to
 *   its bound (own-ticks.ts): a slow message then stops the serving, not the entry.
 * - Absent answers (null) are never kept, so an INSERT never needs to drop anything.
 * - Answers are shared between requests, so they are frozen through.
 */
export class CacheStore {
  readonly #lookups = new Set<CachedLookup<unknown, unknown>>();
  #serving: boolean;
  readonly maxAgeMs: number | null;
  readonly now: () => number;
  readonly current: (() => boolean) | undefined;
  #onFirstRead: (() => void) | undefined;

  constructor(options: CacheStoreOptions) {
    this.maxAgeMs = options.maxAgeMs;
    this.current = options.current;
    this.#serving = options.serving;
    this.now = options.now ?? (() => performance.now());
    this.#onFirstRead = options.onFirstRead;
    this.beforeRead = options.beforeRead;
  }

  /** A source that must be asked (SQLite's data_version) asks here; the read waits for its answer. */
  readonly beforeRead: (() => Promise<void>) | undefined;

  /** Called by a lookup before its first read (starts a notify channel's subscription). */
  firstRead(): void {
    const start = this.#onFirstRead;
    this.#onFirstRead = undefined;
    start?.();
  }

  get serving(): boolean {
    return this.#serving;
  }

  lookup<K, V>(load: (key: K) => Promise<V>, options: CachedLookupOptions): CachedLookup<K, V> {
    const lookup = new CachedLookup<K, V>(this, load, options);
    this.#lookups.add(lookup as CachedLookup<unknown, unknown>);
    return lookup;
  }

  /**
   * Rows of `tables` may have changed (all tables when omitted); `<table>:insert` names a plain INSERT
   * (write-watcher.ts), which matters only to the lookups that list it in `insertsInto`.
   */
  changed(tables?: readonly string[]): void {
    for (const lookup of this.#lookups) if (tables === undefined || lookup.reads(tables)) lookup.drop();
  }

  /** Whether an INSERT into `table` matters to any lookup (else the watcher need not report it). */
  insertsMatter(table: string): boolean {
    for (const lookup of this.#lookups) if (lookup.readsInsertsInto(table)) return true;
    return false;
  }

  /** Start or stop serving (a notify channel subscribed or lost); either way everything goes. */
  setServing(serving: boolean): void {
    this.#serving = serving;
    this.changed();
  }
}

export class CachedLookup<K, V> {
  readonly #entries = new Map<K, Entry>();
  /** Moves at every drop: a load that began under another generation is not kept. */
  #generation = 0;
  #firstRead = true;
  readonly #limit: number;
  readonly #maxChars: number;

  constructor(
    private readonly store: CacheStore,
    private readonly load: (key: K) => Promise<V>,
    private readonly options: CachedLookupOptions,
  ) {
    this.#limit = options.limit ?? 10_000;
    this.#maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
  }

  reads(changes: readonly string[]): boolean {
    return changes.some((change) =>
      change.endsWith(INSERT)
        ? this.readsInsertsInto(change.slice(0, -INSERT.length))
        : this.options.tables.includes(change),
    );
  }

  readsInsertsInto(table: string): boolean {
    return this.options.insertsInto?.includes(table) ?? false;
  }

  drop(): void {
    this.#generation++;
    this.#entries.clear();
  }

  async get(key: K): Promise<V> {
    const { store } = this;
    if (this.#firstRead) {
      this.#firstRead = false;
      store.firstRead();
    }
    if (store.beforeRead !== undefined) await store.beforeRead();
    if (!store.serving) return deepFreeze(await this.load(key));
    const now = store.now();
    const entry = this.#entries.get(key);
    // Asked on every read, hit or not: it is also how the source knows it is being read.
    const current = store.current === undefined || store.current();
    if (
      entry !== undefined &&
      current &&
      (store.maxAgeMs === null || now - entry.loadedAt < store.maxAgeMs)
    ) {
      return entry.value as V;
    }
    const generation = this.#generation;
    const value = deepFreeze(await this.load(key));
    if (value !== null && generation === this.#generation && store.serving && this.#small(value)) {
      if (entry === undefined && this.#entries.size >= this.#limit) {
        this.#entries.delete(this.#entries.keys().next().value as K);
      }
      this.#entries.set(key, { value, loadedAt: now });
    }
    return value;
  }

  #small(value: V): boolean {
    return this.#maxChars === Number.POSITIVE_INFINITY || JSON.stringify(value).length <= this.#maxChars;
  }
}
