import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PasswordHasher } from '../../src/auth/passwords/passwords.ts';
import { describeEachDialect, type TestApp, twoInstances } from '../helpers/app.ts';
import { availableDialects, REDIS_TEST_URL } from '../helpers/databases.ts';
import { deleteRedisKeys, redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';

const LIMIT = 6;

/** Counts every hash the app asks for, so a test can prove a refused request computed none. */
function countHashes(hasher: PasswordHasher): () => number {
  let count = 0;
  const target = hasher as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['hash', 'verify', 'check', 'burn', 'rehash'] as const) {
    const original = target[name]!.bind(hasher);
    target[name] = (...args: unknown[]) => {
      count++;
      return original(...args);
    };
  }
  return () => count;
}

/** A login page's session cookies and CSRF tokens (web and admin guards) for a client at `ip`. */
async function withCsrf(app: TestApp, ip: string) {
  const page = await app.app.inject({ method: 'GET', url: '/login', headers: { 'x-forwarded-for': ip } });
  const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const token = /name="_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const admin = await app.app.inject({ method: 'GET', url: '/admin/login', headers: { cookie } });
  const adminCookies = admin.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const adminToken = /name="_token" value="([^"]+)"/.exec(admin.body)?.[1] ?? '';
  return { cookie: [cookie, adminCookies].filter(Boolean).join('; '), token, adminToken };
}

/** One request to each docs/security.md door that exists, as a client at `ip` (TRUST_PROXY: the loopback proxy). */
async function allDoors(app: TestApp, ip: string, email: string) {
  const { cookie, token, adminToken } = await withCsrf(app, ip);
  const post = (url: string, body: Record<string, string>, csrf = token) =>
    app.app.inject({
      method: 'POST',
      url,
      headers: {
        'x-forwarded-for': ip,
        accept: 'application/json',
        cookie,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({ _token: csrf, ...body }).toString(),
    });
  return [
    () =>
      app.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { 'x-forwarded-for': ip },
        payload: { email, password: 'wrong password', device_name: 'x' },
      }),
    () => post('/login', { email, password: 'wrong password' }),
    () => post('/admin/login', { email, password: 'wrong password' }, adminToken),
    () => post('/register', { name: 'N', email, password: 'x', password_confirmation: 'y' }),
    () => post('/forgot-password', { email }),
    () => post('/reset-password', { token: 'x', email, password: 'abcdefgh', password_confirmation: 'b' }),
  ];
}

await describeEachDialect(
  'IP_AUTH_LIMIT: one per-IP budget for every password check',
  (ctx) => {
    test('per-IP budget: the six doors share one count; the next gets 429 before any hash', async () => {
      const app = ctx();
      const user = await app.createUser();
      const hashes = countHashes(app.services.hasher);
      const ip = '203.0.113.7';
      const requests = await allDoors(app, ip, user.email);
      assert.equal(requests.length, LIMIT);
      for (const [i, send] of requests.entries()) {
        const response = await send();
        assert.notEqual(response.statusCode, 429, `request ${i + 1}: ${response.body}`);
        assert.notEqual(response.statusCode, 419, `request ${i + 1}: ${response.body}`);
      }
      const before = hashes();
      for (const send of requests) {
        const refused = await send();
        assert.equal(refused.statusCode, 429, refused.body);
        assert.deepEqual(refused.json(), { message: 'Too Many Attempts.' });
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
      }
      assert.equal(hashes(), before, 'a refused request computed no hash');
      // Even the right password: the budget is spent for this address.
      const right = await app.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { 'x-forwarded-for': ip },
        payload: { email: user.email, password: user.password, device_name: 'x' },
      });
      assert.equal(right.statusCode, 429);
      // Another address has its own budget.
      const other = await app.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { 'x-forwarded-for': '203.0.113.8' },
        payload: { email: user.email, password: user.password, device_name: 'x' },
      });
      assert.equal(other.statusCode, 200, other.body);
    });

    test('per-IP budget: a refused form shows the auth.throttle text, in the page language', async () => {
      const app = ctx();
      const ip = '203.0.113.9';
      const { cookie, token } = await withCsrf(app, ip);
      const post = (i = 0) =>
        app.app.inject({
          method: 'POST',
          url: '/login?lang=de',
          headers: { 'x-forwarded-for': ip, cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            _token: token,
            email: `a${i}@example.com`,
            password: 'nope-nope',
          }).toString(),
        });
      for (let i = 0; i < LIMIT; i++) assert.equal((await post(i)).statusCode, 422);
      const refused = await post();
      assert.equal(refused.statusCode, 429);
      assert.match(refused.headers['content-type'] as string, /text\/html/);
      assert.match(refused.body, /Zu viele Loginversuche\. Versuchen Sie es bitte in \d+ Sekunden/);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
    });
  },
  { env: { IP_AUTH_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1', API_RATE_LIMIT: '0' } },
);

const redisSkipReason = await redisSkip();
for (const { name, skip } of await availableDialects()) {
  describe(`per-IP budget shared by two instances over Redis [${name}]`, {
    skip: skip || redisSkipReason,
  }, () => {
    const prefix = uniqueRedisPrefix();
    const env = {
      REDIS_URL: REDIS_TEST_URL,
      REDIS_PREFIX: prefix,
      IP_AUTH_LIMIT: '4',
      TRUST_PROXY: '127.0.0.1',
      API_RATE_LIMIT: '0',
    };
    const apps = twoInstances(name, { env, cleanUp: () => deleteRedisKeys(prefix) });

    test('requests on either instance draw on the same budget', async () => {
      const ip = '198.51.100.44';
      const send = (app: TestApp, i: number) =>
        app.app.inject({
          method: 'POST',
          url: '/api/tokens',
          headers: { 'x-forwarded-for': ip },
          payload: { email: `nobody${i}@example.com`, password: 'wrong password', device_name: 'x' },
        });
      for (const [i, app] of [apps.one, apps.two, apps.one, apps.two].entries())
        assert.equal((await send(app, i)).statusCode, 401);
      assert.equal((await send(apps.one, 9)).statusCode, 429);
      assert.equal((await send(apps.two, 9)).statusCode, 429);
    });
  });
}
