import type { Redis } from 'ioredis';
import type { Dialect } from 'kysely';
import type { Lookups } from '../../auth/auth.service.ts';
import type { Config } from '../../config.ts';
import type { User } from '../../users/user.ts';
import type { Primer } from '../fast-path/primer.ts';
import type { InvalidationChannel } from './channel.ts';
import { postgresChannel } from './postgres-channel.ts';
import { redisChannel } from './redis-channel.ts';
import { AuthCacheStore } from './store.ts';
import { watchedDialect } from './watched-dialect.ts';

/**
 * AUTH_CACHE=notify (server databases): token, session and user lookups answered from memory, each
 * entry dropped when its row changes anywhere (README.md here). The one door: services.ts builds it,
 * lets it watch the database's writes, and wraps the plain lookups with it; nothing else knows.
 */
export interface AuthCache {
  /** `dialect`, with every write to a cached table announced (watched-dialect.ts). */
  watch(dialect: Dialect): Dialect;
  /** The plain lookups, answered from memory while fresh; `primer`: the joined reads' users (primer.ts). */
  wrap(plain: Lookups, primer?: Primer<number, User | null>): Lookups;
  /** Whether entries are served now (the channel is subscribed). */
  readonly live: boolean;
  close(): Promise<void>;
}

/** A session is kept only while small (a guest can grow one with a long intended URL or user agent). */
const SESSION_MAX_CHARS = 2560;

/** The cache AUTH_CACHE asks for, or null (off: every lookup is a query, as before). */
export function createAuthCache(config: Config, redis: Redis | null): AuthCache | null {
  if (config.authCache !== 'notify' || config.database.dialect === 'sqlite') return null;
  const store = new AuthCacheStore();
  let channel: InvalidationChannel;
  if (config.database.dialect === 'postgres') {
    channel = postgresChannel(config.database.url, store);
  } else if (redis !== null) {
    channel = redisChannel(redis, `${config.redisPrefix}auth-cache`, store);
  } else {
    // config.ts refuses this combination; kept as a guard for a Config built by hand.
    throw new Error('AUTH_CACHE=notify on MySQL/MariaDB needs REDIS_URL');
  }
  // Subscribed on the first lookup: a CLI command, which only writes, opens no listener.
  let started = false;
  const start = () => {
    if (!started) {
      started = true;
      channel.start();
    }
  };
  const cached = <K, V>(lookup: (key: K) => V | Promise<V>) => {
    return (key: K) => {
      start();
      return lookup(key);
    };
  };

  return {
    watch: (dialect) =>
      watchedDialect(dialect, {
        inConnection: channel.inConnection,
        committed(keys) {
          // This instance's own entries go the moment the commit is confirmed (no channel delay), so a
          // request sent after the writing one was answered never sees the old row here.
          store.invalidate(keys);
          channel.publish(keys);
        },
      }),
    wrap(plain, primer) {
      return {
        findToken: cached(store.lookup('t', plain.findToken, { owner: (found) => found.token.userId })),
        findTokenByHash: cached(
          store.lookup('th', plain.findTokenByHash, { owner: (found) => found.token.userId }),
        ),
        findUser: cached(
          store.lookup('u', plain.findUser, {
            owner: (user) => user.id,
            // A user brought along by a token's or session's read is used but not kept: that read
            // began before this lookup, and a message that arrived in between would go unnoticed.
            unkept: primer && ((id) => primer.take(id)),
          }),
        ),
        findSession: cached(
          store.lookup('s', plain.findSession, {
            owner: (session) => session.userId,
            maxChars: SESSION_MAX_CHARS,
          }),
        ),
      };
    },
    get live() {
      return store.live;
    },
    close: () => channel.close(),
  };
}
