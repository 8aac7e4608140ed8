import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { REDIS_TEST_URL } from '../helpers/databases.ts';
import { deleteRedisKeys, redisKeys, redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';
import { auditCount, browserOn, tally } from './support.ts';

const N = 50;

/**
 * Issue 7 §5: 50 wrong logins for one account from one address, all at once. The limiter reserves
 * an attempt before the password is checked (an atomic INCR in Redis, a synchronous counter in
 * memory), so exactly LOGIN_MAX_ATTEMPTS (5) reach credential checking and 45 are refused with 429 —
 * a check-then-increment limiter would let most of them through.
 */
function suite(ctx: () => TestApp, ip: (n: number) => string) {
  test('web: 50 concurrent wrong passwords → exactly 5 × 422, 45 × 429', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await browserOn(app, '/login');
    const failedBefore = await auditCount(app, 'login.failed');
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        browser.postJson(
          '/login',
          { email: i % 2 ? user.email.toUpperCase() : user.email, password: `wrong-${i}` },
          {},
        ),
      ),
    );
    assert.deepEqual(tally(responses), { 422: 5, 429: N - 5 });
    for (const r of responses.filter((r) => r.statusCode === 429))
      assert.ok(Number(r.headers['retry-after']) > 0);
    assert.equal((await auditCount(app, 'login.failed')) - failedBefore, 5, 'five password checks');
  });

  test('API: 50 concurrent wrong passwords on POST /api/tokens → exactly 5 × 401, 45 × 429', async () => {
    const app = ctx();
    const user = await app.createUser();
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        app.app.inject({
          method: 'POST',
          url: '/api/tokens',
          payload: { email: user.email, password: `wrong-${i}`, device_name: 'race' },
          remoteAddress: ip(1),
        }),
      ),
    );
    assert.deepEqual(tally(responses), { 401: 5, 429: N - 5 });
    // The lock holds for the right password too, and for the account only from that address.
    const right = { email: user.email, password: user.password, device_name: 'race' };
    const locked = await app.app.inject({
      method: 'POST',
      url: '/api/tokens',
      payload: right,
      remoteAddress: ip(1),
    });
    assert.equal(locked.statusCode, 429);
    const elsewhere = await app.app.inject({
      method: 'POST',
      url: '/api/tokens',
      payload: right,
      remoteAddress: ip(2),
    });
    assert.equal(elsewhere.statusCode, 200);
  });
}

// At the real argon2id cost: the password check is the window a check-then-increment limiter would lose.
const argon2 = OWASP_ARGON2ID;

await describeEachDialect(
  'race: concurrent wrong logins, in-memory counters',
  (ctx) => suite(ctx, (n) => `10.50.0.${n}`),
  { argon2 },
);

const redisReason = await redisSkip();
if (redisReason) {
  describe('race: concurrent wrong logins, Redis counters', { skip: redisReason }, () => {});
} else {
  const prefix = uniqueRedisPrefix();
  after(() => deleteRedisKeys(prefix));
  await describeEachDialect(
    'race: concurrent wrong logins, Redis counters',
    (ctx, dialect) => {
      // One Redis prefix for every dialect's run: their addresses differ, or the general API limit
      // (60 a minute per address, counted in Redis too) would carry over from one run to the next.
      const net = ['sqlite', 'postgres', 'mysql'].indexOf(dialect);
      suite(ctx, (n) => `10.51.${net}.${n}`);
      test('the counters are in Redis under REDIS_PREFIX', async () => {
        assert.ok((await redisKeys(prefix)).length > 0);
      });
    },
    { env: { REDIS_URL: REDIS_TEST_URL, REDIS_PREFIX: prefix }, argon2 },
  );
}
