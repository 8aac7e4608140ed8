import type { Redis } from 'ioredis';
import type { Dialect } from 'kysely';
import type { Config } from '../../config.ts';
import type { Lookups } from '../auth.service.ts';
import { type CachedLookupOptions, CacheStore } from './cache-store.ts';
import type { ChannelListener, InvalidationChannel } from './channel.ts';
import { postgresChannel } from './postgres-channel.ts';
import { redisChannel } from './redis-channel.ts';
import { sqliteFreshness } from './sqlite-freshness.ts';
import { watchedDialect } from './write-watcher.ts';

/**
 * The one door of the per-request cache: services.ts builds it, hands `watch` to openDatabase() and
 * wraps the plain lookups with `wrap()`. The domain and the repositories never know it exists; see
 * docs/contributing/architecture.md ("The auth cache").
 */
export interface AuthCache {
  /** A server database's dialect with its writes heard (AUTH_CACHE=notify); null when not needed. */
  readonly watch: ((dialect: Dialect) => Dialect) | null;
  /** The plain lookups, answered from memory while fresh. */
  wrap(lookups: Lookups): Lookups;
  /** Any other per-request lookup by key (a user's memberships, a token's grant), cached alike. */
  cached<K, V>(load: (key: K) => Promise<V>, options: CachedLookupOptions): (key: K) => Promise<V>;
  /** Whether entries are served now (a notify channel is subscribed; always on SQLite). */
  readonly live: boolean;
  close(): Promise<void>;
}

/**
 * With AUTH_CACHE=notify, the longest an entry may serve when no message retires it
 * (docs/guides/several-instances.md): a write made past the service (psql, an older release). A slow
 * message is bounded by the listener's measure of its own lag instead (own-ticks.ts): a revocation
 * answered by one instance is refused by every other within 50 ms.
 */
export const NOTIFY_MAX_AGE_MS = 1_000;

/** A session is cached only while small (a guest can grow one with a long intended URL or user agent). */
const SESSION_MAX_CHARS = 2560;

/**
 * The cache the configuration asks for, or null (every lookup a query):
 * - SQLite (a file): always. Freshness is SQLite's own `PRAGMA data_version`, read before lookups on
 *   a read-only connection of its own, which moves whenever any connection — this process's, the
 *   CLI's, another process's — commits (sqlite-freshness.ts).
 * - PostgreSQL with AUTH_CACHE=notify: writes are heard in the driver (write-watcher.ts), and other
 *   instances learn of them through NOTIFY sent inside the writing transaction.
 * - MySQL/MariaDB with AUTH_CACHE=notify: the same, through Redis PUBLISH after the commit.
 */
export function createAuthCache(config: Config, redis: Redis | null): AuthCache | null {
  const { database } = config;
  if (database.dialect === 'sqlite') {
    if (database.filename === ':memory:' || database.filename === '') return null;
    const freshness = sqliteFreshness(database.filename, () => store);
    const store: CacheStore = new CacheStore({
      maxAgeMs: null,
      serving: true,
      beforeRead: freshness.beforeRead,
    });
    return door(store, null, async () => freshness.close());
  }
  if (config.authCache !== 'notify') return null;
  // The channel reports to the store (below) through this listener, and the store asks the channel
  // itself whether it is current, on every read.
  const listener: ChannelListener = {
    changed: (tables) => store.changed(tables),
    setServing: (serving) => store.setServing(serving),
  };
  let channel: InvalidationChannel;
  if (database.dialect === 'postgres') {
    channel = postgresChannel(database.url, listener);
  } else if (redis !== null) {
    channel = redisChannel(redis, `${config.redisPrefix}auth-cache`, listener, NOTIFY_MAX_AGE_MS);
  } else {
    // config.ts refuses this combination; kept as a guard for a Config built by hand.
    throw new Error('AUTH_CACHE=notify on MySQL/MariaDB needs REDIS_URL');
  }
  // Subscribed on the first read: a CLI command, which only writes, opens no listener.
  const store = new CacheStore({
    maxAgeMs: NOTIFY_MAX_AGE_MS,
    serving: false,
    onFirstRead: channel.start,
    current: channel.current,
  });
  const watch = (dialect: Dialect) =>
    watchedDialect(dialect, {
      inConnection: channel.inConnection,
      committed(tables) {
        // This instance's own entries go the moment the commit is confirmed (no channel delay), so a
        // request sent after the writing one was answered never sees the old row here.
        store.changed(tables);
        return channel.publish(tables);
      },
      insertsMatter: (table) => store.insertsMatter(table),
    });
  return door(store, watch, () => channel.close());
}

function door(store: CacheStore, watch: AuthCache['watch'], close: () => Promise<void>): AuthCache {
  const cached = <K, V>(load: (key: K) => Promise<V>, options: CachedLookupOptions) => {
    const lookup = store.lookup(load, options);
    return lookup.get.bind(lookup);
  };
  return {
    watch,
    cached,
    wrap(plain) {
      return {
        findTokenWithUser: cached(plain.findTokenWithUser, { tables: ['personal_access_tokens', 'users'] }),
        findSessionWithUser: cached(plain.findSessionWithUser, {
          tables: ['sessions', 'users'],
          maxChars: SESSION_MAX_CHARS,
        }),
        findUser: cached(plain.findUser, { tables: ['users'] }),
      };
    },
    get live() {
      return store.serving;
    },
    close,
  };
}
