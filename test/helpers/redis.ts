import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { loadIoredis } from '../../src/lib/packages-on-demand.ts';
import { REDIS_TEST_URL, requireServices } from './databases.ts';

let redisUp: Promise<boolean> | undefined;

function connect(): Redis {
  return new (loadIoredis().Redis)(REDIS_TEST_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
}

export function redisAvailable(): Promise<boolean> {
  redisUp ??= (async () => {
    const client = connect();
    client.on('error', () => {});
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  })();
  return redisUp;
}

/**
 * Skip reason for Redis suites: false when Redis answers; a one-line reason when it does not;
 * throws under REQUIRE_SERVICES=1, where its absence is a failure.
 */
export async function redisSkip(): Promise<string | false> {
  if (await redisAvailable()) return false;
  if (requireServices)
    throw new Error(`Redis is required (REQUIRE_SERVICES=1) but not reachable at ${REDIS_TEST_URL}`);
  return `Redis not reachable at ${REDIS_TEST_URL}`;
}

/** A key prefix of its own per test run, so parallel runs sharing one Redis never see each other's counts. */
export function uniqueRedisPrefix(): string {
  return `gatehouse-test:${randomBytes(6).toString('hex')}:`;
}

/** Every key under `prefix`; used to assert what is stored and to clean up. */
export async function redisKeys(prefix: string): Promise<string[]> {
  const client = connect();
  try {
    await client.connect();
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  } finally {
    client.disconnect();
  }
}

export async function deleteRedisKeys(prefix: string): Promise<void> {
  const keys = await redisKeys(prefix);
  if (keys.length === 0) return;
  const client = connect();
  try {
    await client.connect();
    await client.del(...keys);
  } finally {
    client.disconnect();
  }
}
