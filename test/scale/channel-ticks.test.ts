import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { ChannelListener, InvalidationChannel } from '../../src/auth/cache/channel.ts';
import { HEARD_WITHIN_MS, TICK_MS } from '../../src/auth/cache/own-ticks.ts';
import { postgresChannel } from '../../src/auth/cache/postgres-channel.ts';
import { redisChannel } from '../../src/auth/cache/redis-channel.ts';
import {
  POSTGRES_ADMIN_URL,
  postgresAvailable,
  REDIS_TEST_URL,
  requireServices,
} from '../helpers/databases.ts';
import { redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';

/**
 * The listeners' measure of their own lag (own-ticks.ts): the cache serves from memory only while
 * the listener has heard a tick it sent at most HEARD_WITHIN_MS ago, and every change sent before
 * that tick was heard before it (PostgreSQL: commit order; Redis: the order PUBLISH ran).
 */
async function postgresSkip(): Promise<string | false> {
  if (await postgresAvailable()) return false;
  if (requireServices) throw new Error('postgres is required (REQUIRE_SERVICES=1) but not reachable');
  return 'postgres not reachable';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 3_000;
  while (!check()) {
    assert.ok(Date.now() < deadline, `never: ${what}`);
    await sleep(2);
  }
}

/** A channel under test, and how another instance would announce a change on it. */
interface Peer {
  channel(store: ChannelListener, now: () => number): InvalidationChannel;
  announce(tables: string): Promise<void>;
  close(): Promise<void>;
}

async function postgresPeer(): Promise<Peer> {
  const writer = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await writer.connect();
  return {
    channel: (store, now) => postgresChannel(POSTGRES_ADMIN_URL, store, now),
    async announce(tables) {
      await writer.query(`select pg_notify('gatehouse_auth_cache', $1)`, [tables]);
    },
    close: () => writer.end(),
  };
}

function redisPeer(): Peer {
  const name = `${uniqueRedisPrefix()}auth-cache`;
  const own = new Redis(REDIS_TEST_URL);
  const writer = new Redis(REDIS_TEST_URL);
  return {
    channel: (store, now) => redisChannel(own, name, store, 1_000, now),
    async announce(tables) {
      await writer.publish(name, tables);
    },
    async close() {
      own.disconnect();
      writer.disconnect();
    },
  };
}

const peers = [
  { name: 'PostgreSQL NOTIFY', skip: postgresSkip, peer: postgresPeer },
  { name: 'Redis publish', skip: redisSkip, peer: async () => redisPeer() },
];

for (const { name, skip, peer } of peers) {
  describe(`the ${name} listener measures how late it hears`, { skip: await skip() }, () => {
    test('current only while a recent tick was heard; a change sent before a tick is heard first', async () => {
      let offset = 0;
      const heard: string[][] = [];
      let serving = false;
      const other = await peer();
      const channel = other.channel(
        { changed: (tables) => heard.push([...tables]), setServing: (on) => (serving = on) },
        () => performance.now() + offset,
      );
      try {
        channel.start();
        await until(() => serving, 'subscribed');
        assert.equal(channel.current?.(), false, 'nothing heard yet: not current');
        await until(() => channel.current?.() === true, 'a tick heard');
        assert.ok(
          heard.every((tables) => tables.length > 0),
          'a tick was taken for a change',
        );

        // Time jumps past the bound without a tick heard: no longer current, until a new tick is.
        offset += HEARD_WITHIN_MS + TICK_MS;
        assert.equal(channel.current?.(), false);
        await until(() => channel.current?.() === true, 'current again');

        // A change sent, then at once a read: the change's message is heard before the tick that
        // makes the reader current, so a current reader has always dropped what changed.
        const before = heard.length;
        await other.announce('personal_access_tokens');
        offset += HEARD_WITHIN_MS + TICK_MS;
        await until(() => channel.current?.() === true, 'current after the change');
        assert.ok(heard.slice(before).some((tables) => tables.includes('personal_access_tokens')));
      } finally {
        await channel.close();
        await other.close();
      }
    });
  });
}

describe('a Redis publish that fails', { skip: await redisSkip() }, () => {
  test('holds the writing answer until entries read before the commit have aged out', async () => {
    // Nothing listens on port 1: every publish fails at once.
    const broken = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, retryStrategy: () => null });
    broken.on('error', () => {});
    const channel = redisChannel(broken, 'unused', { changed() {}, setServing() {} }, 150);
    try {
      const started = performance.now();
      await channel.publish(['personal_access_tokens']);
      assert.ok(performance.now() - started >= 145, 'answered before the age bound passed');
    } finally {
      broken.disconnect();
      await channel.close();
    }
  });

  test('a publish that Redis takes is not held', async () => {
    const redis = new Redis(REDIS_TEST_URL);
    const channel = redisChannel(
      redis,
      `${uniqueRedisPrefix()}auth-cache`,
      { changed() {}, setServing() {} },
      5_000,
    );
    try {
      const started = performance.now();
      await channel.publish(['personal_access_tokens']);
      assert.ok(performance.now() - started < 1_000);
    } finally {
      redis.disconnect();
      await channel.close();
    }
  });
});
