import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { describeEachDialect, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const PEER = '192.0.2.10';

async function auditIps(app: TestApp, email: string): Promise<string[]> {
  const rows = await app.db
    .selectFrom('audit_log')
    .select(['ip_address', 'details'])
    .where('event', '=', 'login.failed')
    .orderBy('id')
    .execute();
  return rows.filter((r) => r.details?.includes(email)).map((r) => r.ip_address ?? '');
}

/** A wrong-password token request from the TCP peer PEER, with the given X-Forwarded-For. */
function apiAttempt(app: TestApp, email: string, password: string, forwarded?: string) {
  return app.app.inject({
    method: 'POST',
    url: '/api/tokens',
    remoteAddress: PEER,
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
    payload: { email, password, device_name: 'xff' },
  });
}

/**
 * Issue 7 §7: the client address (throttle key, audit log) comes from X-Forwarded-For only when
 * TRUST_PROXY says a proxy stands in front. Without it, a client rotating the header is still one
 * peer: the sixth attempt is refused. With it, the address the trusted proxy appended counts — not
 * one the client wrote into the header itself, or rotating that would escape the throttle again.
 */
await describeEachDialect(
  'X-Forwarded-For without TRUST_PROXY',
  (ctx) => {
    test('API: a rotating header does not escape the login throttle; the peer is audited', async () => {
      const app = ctx();
      const user = await app.createUser();
      for (let i = 0; i < 5; i++) {
        assert.equal((await apiAttempt(app, user.email, 'wrong password', `203.0.113.${i}`)).statusCode, 401);
      }
      const sixth = await apiAttempt(app, user.email, user.password, '203.0.113.99');
      assert.equal(sixth.statusCode, 429, 'keyed by the real peer');
      assert.deepEqual(await auditIps(app, user.email), Array(5).fill(PEER));
    });

    test('web: the same for the login form', async () => {
      const app = ctx();
      const user = await app.createUser();
      const browser = new Browser(app.app);
      await browser.get('/login');
      const attempt = (password: string, i: number) =>
        app.app.inject({
          method: 'POST',
          url: '/login',
          remoteAddress: PEER,
          headers: {
            cookie: browser.cookieHeader(),
            'x-forwarded-for': `198.51.100.${i}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: new URLSearchParams({ _token: browser.csrf!, email: user.email, password }).toString(),
        });
      for (let i = 0; i < 5; i++) assert.equal((await attempt('wrong password', i)).statusCode, 422);
      assert.equal((await attempt(user.password, 99)).statusCode, 429);
    });
  },
  { env: { API_RATE_LIMIT: '0' } },
);

await describeEachDialect(
  'X-Forwarded-For with TRUST_PROXY=1 (one proxy in front)',
  (ctx) => {
    test('the address the proxy appended is the client: throttled and audited per client', async () => {
      const app = ctx();
      const user = await app.createUser();
      for (let i = 0; i < 5; i++) {
        assert.equal((await apiAttempt(app, user.email, 'wrong password', '203.0.113.7')).statusCode, 401);
      }
      assert.equal((await apiAttempt(app, user.email, user.password, '203.0.113.7')).statusCode, 429);
      const other = await apiAttempt(app, user.email, user.password, '203.0.113.8');
      assert.equal(other.statusCode, 200, 'another client behind the same proxy is not locked out');
      assert.deepEqual(await auditIps(app, user.email), Array(5).fill('203.0.113.7'));
    });

    test('a client cannot pick its own address by sending X-Forwarded-For through the proxy', async () => {
      const app = ctx();
      const user = await app.createUser();
      // The proxy appends the real client (203.0.113.50) to whatever the client sent.
      for (let i = 0; i < 5; i++) {
        const spoofed = `10.66.0.${i}, 203.0.113.50`;
        assert.equal((await apiAttempt(app, user.email, 'wrong password', spoofed)).statusCode, 401);
      }
      const sixth = await apiAttempt(app, user.email, user.password, '10.66.0.99, 203.0.113.50');
      assert.equal(sixth.statusCode, 429, 'the spoofed part is not the throttle key');
      assert.deepEqual(await auditIps(app, user.email), Array(5).fill('203.0.113.50'));
    });
  },
  { env: { TRUST_PROXY: '1', API_RATE_LIMIT: '0' } },
);

await describeEachDialect(
  'X-Forwarded-For with TRUST_PROXY=<proxy address>',
  (ctx) => {
    test('believed from the listed proxy only; a direct client cannot spoof it', async () => {
      const app = ctx();
      const user = await app.createUser();
      for (let i = 0; i < 5; i++) {
        assert.equal((await apiAttempt(app, user.email, 'wrong password', '203.0.113.60')).statusCode, 401);
      }
      assert.equal((await apiAttempt(app, user.email, user.password, '203.0.113.60')).statusCode, 429);
      // The same header from a peer that is not the proxy is ignored: that peer is the client.
      const direct = await app.app.inject({
        method: 'POST',
        url: '/api/tokens',
        remoteAddress: '198.51.100.200',
        headers: { 'x-forwarded-for': '203.0.113.61' },
        payload: { email: user.email, password: 'wrong password', device_name: 'xff' },
      });
      assert.equal(direct.statusCode, 401);
      assert.deepEqual((await auditIps(app, user.email)).slice(-1), ['198.51.100.200']);
    });
  },
  { env: { TRUST_PROXY: `${PEER}, 10.0.0.0/8`, API_RATE_LIMIT: '0' } },
);

test('TRUST_PROXY values: off, hop counts, proxy addresses; anything else stops the start', () => {
  const config = (value: string) =>
    loadConfig(
      { TRUST_PROXY: value, APP_KEY: TEST_APP_KEY, DATABASE_URL: 'sqlite::memory:' },
      { readDotEnv: false },
    ).trustProxy;
  assert.equal(config('false'), false);
  assert.equal(config('0'), false);
  assert.equal(config('true'), 1);
  assert.equal(config('1'), 1);
  assert.equal(config('2'), 2);
  assert.equal(config('10.0.0.0/8, ::1'), '10.0.0.0/8,::1');
  for (const bad of ['maybe', '10.0.0.0/33', '10.0.0.1/8/2', 'proxy.example']) {
    assert.throws(
      () => config(bad),
      (e) => e instanceof ConfigError && e.variable === 'TRUST_PROXY',
      bad,
    );
  }
});
