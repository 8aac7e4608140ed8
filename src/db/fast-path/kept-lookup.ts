import type { ChangeTracker } from './changes.ts';

export interface CachedLookupOptions<V> {
  /** At most this many keys are kept; when full, the oldest goes (default 10,000). */
  readonly limit?: number;
  /** Answers that fail this are not kept (e.g. large rows, so the bound in keys is one in bytes). */
  readonly keep?: (value: V) => boolean;
}

/**
 * The answers of one lookup by key (a token by id, a user by id, a session by its hash), kept while
 * the database reports no change (changes.ts): any commit anywhere retires every kept answer, so
 * a hit is exactly what the database would have answered. Kept values are shared between requests
 * and must be immutable (callers freeze them).
 */
export class CachedLookup<K, V> {
  readonly #entries = new Map<K, V>();
  /** The database version every entry was loaded under; a new version empties the map. */
  #version: number | null = null;
  readonly #limit: number;
  readonly #keep: (value: V) => boolean;

  constructor(
    private readonly changes: ChangeTracker,
    private readonly load: (key: K) => Promise<V>,
    options: CachedLookupOptions<V> = {},
  ) {
    this.#limit = options.limit ?? 10_000;
    this.#keep = options.keep ?? (() => true);
  }

  /**
   * A kept answer is returned as it is (no promise: this runs on every request), else loaded. A
   * request's first lookup waits for the database's version to be read (changes.ts).
   */
  get(key: K): V | Promise<V> {
    // Taken before the load: a write of ours that lands while it is in flight makes it unkeepable.
    const version = this.changes.version();
    if (version === null) return this.load(key);
    if (typeof version === 'number') return this.#lookup(key, version);
    return version.then((read) => this.#lookup(key, read));
  }

  #lookup(key: K, version: number): V | Promise<V> {
    if (version !== this.#version) {
      // Retired answers go at once rather than waiting to be overwritten or evicted.
      this.#entries.clear();
      this.#version = version;
    } else if (this.#entries.has(key)) {
      return this.#entries.get(key) as V;
    }
    return this.#fill(key, version);
  }

  async #fill(key: K, version: number): Promise<V> {
    const value = await this.load(key);
    // Another process's commit during the load can only make the answer newer, and the next request
    // reads the version again; a write of ours (the counter moved) means it may be older: not kept.
    if (this.#version !== version || this.changes.lastVersion() !== version || !this.#keep(value)) {
      return value;
    }
    if (this.#entries.size >= this.#limit) {
      this.#entries.delete(this.#entries.keys().next().value as K);
    }
    this.#entries.set(key, value);
    return value;
  }
}
