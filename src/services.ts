import { Redis } from 'ioredis';
import type { AccessTokenSettings } from './auth/access-tokens.ts';
import { createPasswordHasher, type PasswordHasher } from './auth/passwords.ts';
import { memoryRateLimitStore, redisRateLimitStore } from './auth/rate-limit-stores.ts';
import { RateLimiter } from './auth/rate-limiter.ts';
import type { Config } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/connection.ts';
import { createI18n, type I18n } from './i18n/i18n.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { createMailer } from './mail/mailer.ts';
import type { OutboxSettings } from './mail/outbox.ts';
import { OutboxWorker } from './mail/outbox-worker.ts';
import { createPayloadCipher } from './mail/payload-cipher.ts';
import type { Transport } from './mail/transport.ts';

/** Everything the HTTP layer and the CLI need, built once from the config (the composition root). */
export interface Services {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly redis: Redis | null;
  readonly clock: Clock;
  readonly hasher: PasswordHasher;
  readonly limiter: RateLimiter;
  readonly i18n: I18n;
  readonly tokens: AccessTokenSettings;
  /** The configured mailer (MAIL_MAILER); only the outbox worker and `mail:test` send through it. */
  readonly mailer: Transport;
  /** Durable mail queue: use cases enqueue in their transaction; server.ts starts the worker. */
  readonly outbox: OutboxWorker;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  hasher?: PasswordHasher;
  database?: DatabaseHandle;
  mailer?: Transport;
  outbox?: Partial<OutboxSettings>;
}

export function createServices(config: Config, overrides: ServiceOverrides = {}): Services {
  const clock = overrides.clock ?? systemClock;
  const database = overrides.database ?? openDatabase(config.database);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true })
    : null;
  // Without a listener ioredis would crash the process on a connection error; /ready reports it instead.
  redis?.on('error', () => {});
  const store = redis ? redisRateLimitStore(redis, `${config.redisPrefix}rl:`) : memoryRateLimitStore(clock);
  const mailer = overrides.mailer ?? createMailer(config, () => outbox.log);
  const outbox: OutboxWorker = new OutboxWorker({
    db: database.db,
    dialect: database.dialect,
    transport: mailer,
    cipher: createPayloadCipher(config.appKey),
    clock,
    settings: overrides.outbox,
  });
  return {
    config,
    database,
    redis,
    clock,
    hasher: overrides.hasher ?? createPasswordHasher(config.hashConcurrency),
    limiter: new RateLimiter(store),
    i18n: createI18n(config.locale, config.fallbackLocale),
    tokens: { expirationMinutes: config.tokenExpirationMinutes, prefix: config.tokenPrefix },
    mailer,
    outbox,
    async close() {
      // First: the worker may be writing a delivery result, which needs the database.
      await outbox.stop();
      await store.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      if (!overrides.database) await database.close();
    },
  };
}
