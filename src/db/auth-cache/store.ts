import { deepFreeze } from '../../lib/deep-freeze.ts';
import type { Invalidation } from './invalidations.ts';

/**
 * Seconds an entry may serve at most, however quiet the invalidation channel is. The channel is what
 * keeps entries fresh (milliseconds); this bounds the damage of a message that never came — a write
 * made by a process that does not publish (psql by hand, an older release), or a Redis PUBLISH that
 * failed after its commit.
 */
export const AUTH_CACHE_TTL_MS = 5_000;

/** The lookups held: token by id, imported token by hash, user by id, session by key. */
export type CacheKind = 't' | 'th' | 'u' | 's';

interface Entry {
  readonly value: unknown;
  /** The user the row belongs to (a user's own row: its id), for `tu:`/`su:`/`u:` drops; null: a guest session. */
  readonly owner: number | null;
  readonly expires: number;
}

export interface CachedLookupOptions<K, V> {
  /** The user a (non-null) answer belongs to. */
  readonly owner: (value: NonNullable<V>) => number | null;
  /** Answers longer than this as JSON are not kept. */
  readonly maxChars?: number;
  /** An answer to use (once, not kept) before loading: the primed user of a joined read (primer.ts). */
  readonly unkept?: (key: K) => V | undefined;
}

/**
 * The entries of every cached lookup of one process, and the rules for using them:
 *
 * - An entry serves only while the invalidation channel is subscribed (`live`). While it is not,
 *   messages may be missed, so nothing is served or kept and every lookup is a query (strict).
 * - A load is kept only if no invalidation (and no change of `live`) happened while it was in flight:
 *   its row may have been read before a commit whose message arrived during the load. Any message
 *   counts (one counter, `#generation`), which is coarse but needs no per-key bookkeeping.
 * - Absent answers (null/undefined) are never kept: an insert then needs no message.
 * - Answers are shared between requests, so they are frozen through.
 */
export class AuthCacheStore {
  readonly #maps: Record<CacheKind, Map<unknown, Entry>> = {
    t: new Map(),
    th: new Map(),
    u: new Map(),
    s: new Map(),
  };
  #generation = 0;
  #live = false;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly limit = 10_000,
  ) {}

  get live(): boolean {
    return this.#live;
  }

  /** The channel is subscribed: from now on every change is heard, so entries may be kept again. */
  subscribed(): void {
    this.#generation++;
    this.#live = true;
  }

  /**
   * The channel is lost: a change made from now until it is back would never reach us, and one made
   * just before may be in a message that is gone with the connection. Everything goes, and nothing is
   * served until it is subscribed again.
   */
  lost(): void {
    this.#live = false;
    this.#generation++;
    for (const map of Object.values(this.#maps)) map.clear();
  }

  invalidate(keys: readonly Invalidation[]): void {
    this.#generation++;
    for (const key of keys) this.#drop(key);
  }

  lookup<K, V>(
    kind: CacheKind,
    load: (key: K) => V | Promise<V>,
    options: CachedLookupOptions<K, V>,
  ): (key: K) => V | Promise<V> {
    const map = this.#maps[kind];
    return (key) => {
      if (this.#live) {
        const entry = map.get(key);
        if (entry !== undefined) {
          if (entry.expires > this.now()) return entry.value as V;
          map.delete(key);
        }
      }
      const unkept = options.unkept?.(key);
      if (unkept !== undefined) return unkept;
      return this.#fill(map, key, load, options);
    };
  }

  async #fill<K, V>(
    map: Map<unknown, Entry>,
    key: K,
    load: (key: K) => V | Promise<V>,
    options: CachedLookupOptions<K, V>,
  ): Promise<V> {
    const generation = this.#generation;
    const live = this.#live;
    const value = deepFreeze(await load(key));
    if (!live || generation !== this.#generation || value === null || value === undefined) return value;
    if (options.maxChars !== undefined && (JSON.stringify(value) ?? '').length > options.maxChars)
      return value;
    if (map.size >= this.limit) map.delete(map.keys().next().value);
    const owner = options.owner(value as NonNullable<V>);
    map.set(key, { value, owner, expires: this.now() + AUTH_CACHE_TTL_MS });
    return value;
  }

  #drop(key: Invalidation): void {
    const { t, th, u, s } = this.#maps;
    const colon = key.indexOf(':');
    const kind = colon < 0 ? key : key.slice(0, colon);
    const value = key.slice(colon + 1);
    const id = Number(value);
    switch (kind) {
      case 'u*':
        // Any user row: tokens and sessions may have gone with it (cascade), so everything goes.
        this.#clearAll();
        break;
      case 't*':
        clear(t, th);
        break;
      case 's*':
        clear(s);
        break;
      case 'u':
        // A deleted user takes its tokens and sessions with it (foreign keys cascade).
        u.delete(id);
        dropOwned(id, t, th, s);
        break;
      case 't':
        t.delete(id);
        // Imported tokens are held by hash: which hash belongs to the id is in the entry, so scan.
        dropWhere(th, (entry) => (entry.value as { token: { id: number } }).token.id === id);
        break;
      case 'tu':
        dropOwned(id, t, th);
        break;
      case 's':
        s.delete(value);
        break;
      case 'su':
        dropOwned(id, s);
        break;
      default:
        // A key this release does not know (a newer instance's): drop everything rather than guess.
        this.#clearAll();
    }
  }

  #clearAll(): void {
    for (const map of Object.values(this.#maps)) map.clear();
  }
}

function clear(...maps: Map<unknown, Entry>[]): void {
  for (const map of maps) map.clear();
}

function dropOwned(owner: number, ...maps: Map<unknown, Entry>[]): void {
  for (const map of maps) dropWhere(map, (entry) => entry.owner === owner);
}

function dropWhere(map: Map<unknown, Entry>, match: (entry: Entry) => boolean): void {
  for (const [key, entry] of map) if (match(entry)) map.delete(key);
}
