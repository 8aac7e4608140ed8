import type { DatabaseConfig } from '../config.ts';
import { ConfigError, oneOf, type Reader } from './parsers.ts';

/** AUTH_CACHE: `off` (every auth check asks the database) or `notify` (src/auth/cache/). */
export type AuthCacheMode = 'off' | 'notify';

export function authCacheMode(
  read: Reader,
  database: DatabaseConfig,
  redisUrl: string | null,
): AuthCacheMode {
  const mode = oneOf(read, 'AUTH_CACHE', ['off', 'notify'] as const, 'off');
  if (mode === 'off') return mode;
  // Refused rather than ignored: SQLite caches its lookups already (auth/cache/), fresher than any
  // notification could make them, so asking for notify there is a misunderstanding worth one line.
  if (database.dialect === 'sqlite') {
    throw new ConfigError(
      'AUTH_CACHE',
      'notify is for PostgreSQL and MySQL/MariaDB; SQLite keeps its lookups without it (use off)',
    );
  }
  // Invalidations travel over Redis pub/sub on MySQL/MariaDB, which has no NOTIFY.
  if (database.dialect === 'mysql' && redisUrl === null) {
    throw new ConfigError(
      'AUTH_CACHE',
      'notify on MySQL/MariaDB needs REDIS_URL (invalidations go over Redis pub/sub)',
    );
  }
  return mode;
}
