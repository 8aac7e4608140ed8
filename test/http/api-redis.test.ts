import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertJsonError, bearer, requestToken } from '../helpers/api.ts';
import { appDialects, countRows, type TestApp, twoInstances } from '../helpers/app.ts';
import { REDIS_TEST_URL } from '../helpers/databases.ts';
import { deleteRedisKeys, redisKeys, redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';

const redisSkipReason = await redisSkip();
const API_LIMIT = 10;

/**
 * Two app instances over one database and one Redis (REDIS_URL set): the rate-limit counts live in
 * Redis, so an attempt on one instance counts on the other at once (docs/guides/several-instances.md). Each run uses its
 * own REDIS_PREFIX and deletes its keys afterwards.
 */
for (const { name, skip } of await appDialects()) {
  describe(`Redis-backed throttling across two instances [${name}]`, {
    skip: skip || redisSkipReason,
  }, () => {
    const prefix = uniqueRedisPrefix();
    const env = { REDIS_URL: REDIS_TEST_URL, REDIS_PREFIX: prefix, API_RATE_LIMIT: String(API_LIMIT) };
    const apps = twoInstances(name, { env, cleanUp: () => deleteRedisKeys(prefix) });

    const attempt = (app: TestApp, email: string, password: string, ip: string) =>
      requestToken(app.app, { email, password, device_name: 'x' }, ip);

    test('login failures on either instance add up; the 6th is refused on both, right password or not', async () => {
      const user = await apps.one.createUser();
      const ip = '10.3.0.1';
      for (const [i, app] of [apps.one, apps.two, apps.one, apps.two, apps.one].entries()) {
        const email = i % 2 ? user.email.toUpperCase() : user.email;
        const response = await attempt(app, email, 'wrong password', ip);
        assert.equal(response.statusCode, 401, `failure ${i + 1}`);
      }
      const tokens = await countRows(apps.one.db, 'personal_access_tokens');
      for (const app of [apps.two, apps.one]) {
        const refused = await attempt(app, user.email, user.password, ip);
        assertJsonError(refused, 429);
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(retryAfter > 0 && retryAfter <= 60, String(retryAfter));
        assert.match(refused.json().message, /^Too many login attempts\. Please try again in \d+ seconds\.$/);
      }
      assert.equal(await countRows(apps.one.db, 'personal_access_tokens'), tokens);
      assert.equal(
        (await attempt(apps.two, user.email, user.password, '10.3.0.2')).statusCode,
        200,
        'other IP',
      );
    });

    test('a success on one instance clears the count for both', async () => {
      const user = await apps.one.createUser();
      const ip = '10.3.1.1';
      for (const app of [apps.one, apps.two, apps.one, apps.two]) {
        assert.equal((await attempt(app, user.email, 'wrong password', ip)).statusCode, 401);
      }
      assert.equal((await attempt(apps.two, user.email, user.password, ip)).statusCode, 200);
      for (const app of [apps.one, apps.two, apps.one, apps.two]) {
        assert.equal((await attempt(app, user.email, 'wrong password', ip)).statusCode, 401);
      }
      assert.equal(
        (await attempt(apps.one, user.email, user.password, ip)).statusCode,
        200,
        'count was cleared',
      );
    });

    test('the general API limit is shared: API_RATE_LIMIT requests per user across instances', async () => {
      const user = await apps.one.createUser();
      const other = await apps.one.createUser();
      const token = bearer(await apps.one.issueToken(user.email, user.password));
      const theirs = bearer(await apps.two.issueToken(other.email, other.password));
      for (let i = 0; i < API_LIMIT; i++) {
        const app = i % 2 ? apps.two : apps.one;
        const response = await app.app.inject({ url: '/api/user', headers: token });
        assert.equal(response.statusCode, 200, `request ${i + 1}`);
        assert.equal(response.headers['x-ratelimit-remaining'], String(API_LIMIT - i - 1));
      }
      for (const app of [apps.one, apps.two]) {
        const limited = await app.app.inject({ url: '/api/user', headers: token });
        assertJsonError(limited, 429);
        assert.deepEqual(limited.json(), { message: 'Too Many Attempts.' });
        assert.ok(Number(limited.headers['retry-after']) > 0);
      }
      assert.equal(
        (await apps.two.app.inject({ url: '/api/user', headers: theirs })).statusCode,
        200,
        'per user',
      );
    });

    test('counters live only under REDIS_PREFIX, hashed: no e-mail address or IP in Redis', async () => {
      const keys = await redisKeys(prefix);
      assert.ok(keys.length >= 3, `keys: ${keys.length}`);
      for (const key of keys) assert.match(key, new RegExp(`^${prefix}rl:[0-9a-f]{64}$`));
    });
  });
}
