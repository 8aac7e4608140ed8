import { NOTIFY_MAX_AGE_MS } from '../../src/auth/cache/auth-cache.ts';
import { HEARD_WITHIN_MS } from '../../src/auth/cache/postgres-channel.ts';

/**
 * How soon B must be asked again for its answer to show that it kept the entry: well within the age
 * bound and, on PostgreSQL, within the lag its listener tolerates (a loaded machine that answers
 * later makes the attempt count for nothing, and the test tries again).
 */
export const keptCheckMs = (dialect: 'postgres' | 'mysql') =>
  Math.min(NOTIFY_MAX_AGE_MS[dialect], dialect === 'postgres' ? HEARD_WITHIN_MS : Number.POSITIVE_INFINITY) /
  2;
