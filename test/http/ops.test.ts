import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, describeApp, type TestApp } from '../helpers/app.ts';
import { REDIS_TEST_URL } from '../helpers/databases.ts';
import { redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';

/** A TCP port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 1;
}

await describeApp('GET /health and /ready', (ctx) => {
  test('/health → 200 {"status":"ok"}', async () => {
    const response = await ctx().app.inject({ url: '/health' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok' });
  });

  test('/ready → 200 when the database answers (no Redis configured)', async () => {
    const response = await ctx().app.inject({ url: '/ready' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok', checks: { database: 'ok' } });
  });
});

describe('/ready with REDIS_URL on a closed port', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
  });
  after(async () => {
    await t?.close();
  });

  test('→ 503 naming the failing check; /health still 200', async () => {
    const started = performance.now();
    const ready = await t.app.inject({ url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json(), { status: 'unavailable', checks: { database: 'ok', redis: 'fail' } });
    assert.ok(performance.now() - started < 3000, 'the probe is bounded in time');
    const health = await t.app.inject({ url: '/health' });
    assert.equal(health.statusCode, 200);
  });
});

describe('/ready with a database that stopped answering', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(async () => {
    await t?.close();
  });

  test('→ 503 with database: fail', async () => {
    await t.services.database.close();
    const ready = await t.app.inject({ url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json().checks.database, 'fail');
  });
});

describe('/ready with a live Redis', { skip: await redisSkip() }, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', {
      env: { REDIS_URL: REDIS_TEST_URL, REDIS_PREFIX: uniqueRedisPrefix() },
    });
  });
  after(async () => {
    await t?.close();
  });

  test('→ 200 with both checks ok', async () => {
    const ready = await t.app.inject({ url: '/ready' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ok', checks: { database: 'ok', redis: 'ok' } });
  });
});
