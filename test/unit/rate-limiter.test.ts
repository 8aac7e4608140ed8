import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import {
  memoryRateLimitStore,
  RateLimiter,
  type RateLimitStore,
} from '../../src/auth/throttle/rate-limiter.ts';
import { redisRateLimitStore } from '../../src/auth/throttle/redis-rate-limit-store.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { REDIS_TEST_URL } from '../helpers/databases.ts';
import { deleteRedisKeys, redisKeys, redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';

const LIMIT = { max: 5, windowSeconds: 60 };

/** The behaviour every store must give the limiter (one shared suite, like the dialect suites). */
function limiterContract(makeStore: () => RateLimitStore) {
  test('allows `max` attempts, then refuses with the time left in the window', async () => {
    const limiter = new RateLimiter(makeStore());
    for (let i = 1; i <= 5; i++) {
      const attempt = await limiter.attempt('a@example.com|10.0.0.1', LIMIT);
      assert.deepEqual(attempt, { allowed: true, remaining: 5 - i });
    }
    const refused = await limiter.attempt('a@example.com|10.0.0.1', LIMIT);
    assert.equal(refused.allowed, false);
    assert.ok(!refused.allowed && refused.retryAfterSeconds > 55 && refused.retryAfterSeconds <= 60);
    assert.ok(!refused.allowed && refused.firstRefusal, 'the 6th attempt starts the lockout');
    const again = await limiter.attempt('a@example.com|10.0.0.1', LIMIT);
    assert.ok(!again.allowed && !again.firstRefusal, 'reported once per window');
  });

  test('keys are independent', async () => {
    const limiter = new RateLimiter(makeStore());
    for (let i = 0; i < 6; i++) await limiter.attempt('b@example.com|10.0.0.1', LIMIT);
    assert.equal((await limiter.attempt('b@example.com|10.0.0.2', LIMIT)).allowed, true);
    assert.equal((await limiter.attempt('c@example.com|10.0.0.1', LIMIT)).allowed, true);
  });

  test('clear() resets the count; blocked() reads it without consuming', async () => {
    const limiter = new RateLimiter(makeStore());
    for (let i = 0; i < 4; i++) await limiter.attempt('d', LIMIT);
    assert.equal(await limiter.blocked('d', LIMIT), null);
    await limiter.attempt('d', LIMIT);
    const blocked = await limiter.blocked('d', LIMIT);
    assert.ok(blocked !== null && blocked > 55 && blocked <= 60);
    assert.ok((await limiter.blocked('d', LIMIT)) !== null, 'peeking did not consume');
    await limiter.clear('d');
    assert.equal(await limiter.blocked('d', LIMIT), null);
    assert.deepEqual(await limiter.attempt('d', LIMIT), { allowed: true, remaining: 4 });
  });

  test('release() gives back one reserved attempt, never below zero, never for a dead window', async () => {
    const limiter = new RateLimiter(makeStore());
    for (let i = 0; i < 5; i++) await limiter.attempt('r', LIMIT);
    await limiter.release('r');
    assert.deepEqual(await limiter.attempt('r', LIMIT), { allowed: true, remaining: 0 });
    await limiter.release('unknown');
    assert.equal(await limiter.blocked('unknown', LIMIT), null, 'no window was created');
    assert.equal(await limiter.store.peek('unknown'), null);
  });

  test('concurrent attempts never exceed the limit', async () => {
    const limiter = new RateLimiter(makeStore());
    const results = await Promise.all(Array.from({ length: 20 }, () => limiter.attempt('e', LIMIT)));
    assert.equal(results.filter((r) => r.allowed).length, 5);
    assert.equal(results.filter((r) => !r.allowed && r.firstRefusal).length, 1);
  });

  test('hitAndRestart() pushes the window to windowMs after the hit, never brings it forward', async () => {
    const store = makeStore();
    const first = await store.hitAndRestart('p', 60_000);
    assert.equal(first.count, 1);
    assert.ok(first.resetInMs > 59_000 && first.resetInMs <= 60_000, String(first.resetInMs));
    const shorter = await store.hitAndRestart('p', 10_000);
    assert.equal(shorter.count, 2);
    assert.ok(shorter.resetInMs > 59_000, 'a shorter window does not bring the end forward');
    const longer = await store.hitAndRestart('p', 120_000);
    assert.equal(longer.count, 3);
    assert.ok(longer.resetInMs > 119_000 && longer.resetInMs <= 120_000, String(longer.resetInMs));
  });

  test('concurrent hitAndRestart() calls each see a distinct count: one alone in the window', async () => {
    const store = makeStore();
    const hits = await Promise.all(Array.from({ length: 20 }, () => store.hitAndRestart('q', 5_000)));
    assert.deepEqual(
      hits.map((hit) => hit.count).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });
}

describe('memory rate-limit store', () => {
  const clock = fakeClock(Date.UTC(2026, 0, 1));
  const stores: RateLimitStore[] = [];
  after(async () => {
    for (const store of stores) await store.close();
  });
  const make = () => {
    const store = memoryRateLimitStore(clock);
    stores.push(store);
    return store;
  };
  limiterContract(make);

  test('the window starts at the first hit and ends `windowSeconds` later', async () => {
    const limiter = new RateLimiter(make());
    for (let i = 0; i < 5; i++) await limiter.attempt('w', LIMIT);
    clock.advance(20_000);
    const refused = await limiter.attempt('w', LIMIT);
    assert.deepEqual(refused, { allowed: false, retryAfterSeconds: 40, firstRefusal: true });
    clock.advance(39_999);
    assert.deepEqual(await limiter.attempt('w', LIMIT), {
      allowed: false,
      retryAfterSeconds: 1,
      firstRefusal: false,
    });
    clock.advance(1);
    assert.deepEqual(await limiter.attempt('w', LIMIT), { allowed: true, remaining: 4 });
  });

  test('keeps at most maxKeys windows, however many distinct keys arrive', async () => {
    const store = memoryRateLimitStore(clock, 3);
    stores.push(store);
    for (const key of ['a', 'b', 'c']) await store.hit(key, 60_000);
    await store.hit('a', 60_000);
    await store.hitAndRestart('d', 60_000);
    assert.equal((await store.peek('a'))?.count, 2, 'the window with more hits stays');
    assert.equal(await store.peek('b'), null, 'the oldest of the fewest hits made room');
    for (let i = 0; i < 1000; i++) await store.hit(`flood-${i}`, 60_000);
    assert.equal((await store.peek('flood-999'))?.count, 1);
    assert.equal(await store.peek('flood-996'), null, 'a flood of new keys keeps the map at its bound');
    assert.deepEqual([await store.peek('c'), await store.peek('d')], [null, null]);
  });

  test('a flood of new keys does not push out a lockout; an expired window goes first', async () => {
    const store = memoryRateLimitStore(clock, 100);
    stores.push(store);
    // An account locked after five failures, its window restarted by each.
    for (let i = 0; i < 5; i++) await store.hitAndRestart('login-account:victim@example.com', 900_000);
    for (let i = 0; i < 10_000; i++) await store.hit(`device-poll:${i}`, 60_000);
    assert.equal((await store.peek('login-account:victim@example.com'))?.count, 5);
    clock.advance(900_000);
    await store.hit('new', 60_000);
    assert.equal(await store.peek('login-account:victim@example.com'), null, 'ended: it made room');
    assert.equal((await store.peek('new'))?.count, 1);
  });

  test('hitAndRestart(): every hit restarts the window; a whole window without one ends it', async () => {
    const store = make();
    assert.equal((await store.hitAndRestart('s', 10_000)).count, 1);
    clock.advance(9_000);
    assert.deepEqual(await store.hitAndRestart('s', 10_000), { count: 2, resetInMs: 10_000 });
    clock.advance(9_000);
    assert.equal((await store.hitAndRestart('s', 10_000)).count, 3, '18 s after the first hit');
    clock.advance(10_000);
    assert.equal((await store.hitAndRestart('s', 10_000)).count, 1, 'a quiet window has passed');
  });
});

describe('Redis rate-limit store', { skip: await redisSkip() }, () => {
  const prefix = uniqueRedisPrefix();
  const redis = new Redis(REDIS_TEST_URL, { maxRetriesPerRequest: 1 });
  after(async () => {
    await deleteRedisKeys(prefix);
    await redis.quit();
  });
  let n = 0;
  // A namespace per test: each test starts from empty counters.
  limiterContract(() => redisRateLimitStore(redis, `${prefix}${++n}:`));

  test('keys live under the namespace, hashed (no e-mail address in Redis), with an expiry', async () => {
    const limiter = new RateLimiter(redisRateLimitStore(redis, `${prefix}keys:`));
    await limiter.attempt('login:api:someone@example.com|10.0.0.1', LIMIT);
    const keys = await redisKeys(`${prefix}keys:`);
    assert.equal(keys.length, 1);
    assert.match(keys[0]!, /^gatehouse-test:[0-9a-f]+:keys:[0-9a-f]{64}$/);
    const ttl = await redis.pttl(keys[0]!);
    assert.ok(ttl > 55_000 && ttl <= 60_000, String(ttl));
  });

  test('hitAndRestart(): every hit restarts the expiry; an expired window starts again', async () => {
    const store = redisRateLimitStore(redis, `${prefix}restart:`);
    await store.hitAndRestart('s', 60_000);
    const [key] = await redisKeys(`${prefix}restart:`);
    // Time passing, without waiting for it: the window is left with one second.
    await redis.pexpire(key!, 1_000);
    const again = await store.hitAndRestart('s', 60_000);
    assert.equal(again.count, 2);
    assert.ok(again.resetInMs > 59_000, String(again.resetInMs));
    assert.ok((await redis.pttl(key!)) > 59_000);
    await redis.del(key!);
    assert.equal((await store.hitAndRestart('s', 60_000)).count, 1);
  });

  test('two stores on one Redis and namespace share the counts', async () => {
    const one = new RateLimiter(redisRateLimitStore(redis, `${prefix}shared:`));
    const two = new RateLimiter(redisRateLimitStore(redis, `${prefix}shared:`));
    for (let i = 0; i < 3; i++) await one.attempt('k', LIMIT);
    for (let i = 0; i < 2; i++) await two.attempt('k', LIMIT);
    assert.equal((await one.attempt('k', LIMIT)).allowed, false);
    await two.clear('k');
    assert.equal((await one.attempt('k', LIMIT)).allowed, true);
  });
});
