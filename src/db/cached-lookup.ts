import type { ChangeTracker } from './changes.ts';

interface Entry<V> {
  readonly version: number;
  readonly value: V;
}

/**
 * The answers of one lookup by key (a token by id, a user by id, a session by its hash), kept while
 * the database reports no change (db/changes.ts): any commit anywhere retires every kept answer, so
 * a hit is exactly what the database would have answered. Bounded: when full, the oldest key goes.
 * Kept values are shared between requests and must be treated as immutable.
 */
export class CachedLookup<K, V> {
  readonly #entries = new Map<K, Entry<V>>();

  constructor(
    private readonly changes: ChangeTracker,
    private readonly load: (key: K) => Promise<V>,
    private readonly limit = 10_000,
  ) {}

  /** A kept answer is returned as it is (no promise: this runs on every request), else loaded. */
  get(key: K): V | Promise<V> {
    // Taken before the load: a commit that lands while it is in flight makes the entry stale at once.
    const version = this.changes.version();
    if (version === null) return this.load(key);
    const hit = this.#entries.get(key);
    if (hit !== undefined && hit.version === version) return hit.value;
    return this.#fill(key, version, hit === undefined);
  }

  async #fill(key: K, version: number, isNew: boolean): Promise<V> {
    const value = await this.load(key);
    if (isNew && this.#entries.size >= this.limit) {
      this.#entries.delete(this.#entries.keys().next().value as K);
    }
    this.#entries.set(key, { version, value });
    return value;
  }
}
