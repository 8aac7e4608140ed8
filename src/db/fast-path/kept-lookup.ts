import { deepFreeze } from '../../lib/deep-freeze.ts';
import type { ChangeTracker } from './changes.ts';

export interface KeptLookupOptions {
  /** At most this many keys are kept; when full, the oldest goes (default 10,000). */
  readonly limit?: number;
  /** Answers longer than this as JSON are not kept, so the bound in keys is one in bytes too. */
  readonly maxChars?: number;
}

/**
 * Wraps a plain lookup by key (a token by id, a user by id, a session by its hash) so that its answers
 * are kept while the database reports no change (changes.ts): any commit anywhere retires every kept
 * answer, so a hit is exactly what the database would have answered. Answers are shared between
 * requests, so they are frozen through and through (every answer, kept or not, for one behaviour).
 *
 * A kept answer is returned as it is, without a promise (this runs on every request). With a tracker
 * that cannot tell (PostgreSQL, MySQL), every call loads.
 */
export function keptLookup<K, V>(
  changes: ChangeTracker,
  load: (key: K) => Promise<V> | V,
  options: KeptLookupOptions = {},
): (key: K) => V | Promise<V> {
  const kept = new KeptLookup(changes, load, options);
  return (key) => kept.get(key);
}

export class KeptLookup<K, V> {
  readonly #entries = new Map<K, V>();
  /** The database version every entry was loaded under; a new version empties the map. */
  #version: number | null = null;
  readonly #limit: number;
  readonly #maxChars: number;

  constructor(
    private readonly changes: ChangeTracker,
    private readonly load: (key: K) => Promise<V> | V,
    options: KeptLookupOptions = {},
  ) {
    this.#limit = options.limit ?? 10_000;
    this.#maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
  }

  /** A request's first lookup waits for the database's version to be read (changes.ts). */
  get(key: K): V | Promise<V> {
    // Taken before the load: a write of ours that lands while it is in flight makes it unkeepable.
    const version = this.changes.version();
    if (version === null) return this.#loadFrozen(key);
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

  async #loadFrozen(key: K): Promise<V> {
    return deepFreeze(await this.load(key));
  }

  async #fill(key: K, version: number): Promise<V> {
    const value = await this.#loadFrozen(key);
    // Another process's commit during the load can only make the answer newer, and the next request
    // reads the version again; a write of ours (the counter moved) means it may be older: not kept.
    if (this.#version !== version || this.changes.lastVersion() !== version || !this.#small(value)) {
      return value;
    }
    if (this.#entries.size >= this.#limit) {
      this.#entries.delete(this.#entries.keys().next().value as K);
    }
    this.#entries.set(key, value);
    return value;
  }

  #small(value: V): boolean {
    return (
      this.#maxChars === Number.POSITIVE_INFINITY || (JSON.stringify(value) ?? '').length <= this.#maxChars
    );
  }
}
