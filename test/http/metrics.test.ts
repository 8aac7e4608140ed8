import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { createTestApp, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { guestWithOptions, userWithPasskey } from '../helpers/passkeys.ts';
import { parseExposition, type Sample, sampleValue } from '../helpers/prometheus.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';

/**
 * GET /metrics (docs/guides/metrics.md) on every dialect: the exposition parses, and each login attempt, bearer
 * check and request moves its counter by exactly one, under labels that name no person.
 */
const TOKEN = 'metrics-token-for-the-tests-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const clock = fakeClock(midStep());

async function scrape(t: TestApp): Promise<Sample[]> {
  const response = await t.app.inject({ url: '/metrics', headers: auth });
  assert.equal(response.statusCode, 200, response.body);
  return parseExposition(response.body).samples;
}

/** Runs `act`, then gives the change of each named series. */
async function delta(t: TestApp, act: () => Promise<void>, series: [string, Record<string, string>][]) {
  const before = await scrape(t);
  await act();
  const after = await scrape(t);
  return series.map(([name, labels]) => sampleValue(after, name, labels) - sampleValue(before, name, labels));
}

const logins = (guard: string, result: string): [string, Record<string, string>] => [
  'gatehouse_logins_total',
  { guard, result },
];

async function loginBrowser(t: TestApp, path = '/login') {
  const browser = new Browser(t.app);
  await browser.get(path);
  return browser;
}

await describeApp(
  'GET /metrics',
  (ctx) => {
    let t: TestApp;
    before(() => {
      t = ctx();
    });

    test('401 without the token or with a wrong one (constant-time compare), 200 with it', async () => {
      const none = await t.app.inject({ url: '/metrics', headers: { accept: 'application/json' } });
      assert.equal(none.statusCode, 401);
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="Gatehouse"');
      assert.deepEqual(none.json(), { message: 'Unauthenticated.' });
      for (const wrong of [`${TOKEN}x`, TOKEN.slice(0, -1), 'x', TOKEN.toUpperCase()]) {
        const answer = await t.app.inject({
          url: '/metrics',
          headers: { authorization: `Bearer ${wrong}`, accept: 'application/json' },
        });
        assert.equal(answer.statusCode, 401, wrong);
        assert.equal(answer.headers['www-authenticate'], 'Bearer realm="Gatehouse", error="invalid_token"');
      }
      const basic = await t.app.inject({ url: '/metrics', headers: { authorization: `Basic ${TOKEN}` } });
      assert.equal(basic.statusCode, 401);
      const ok = await t.app.inject({ url: '/metrics', headers: auth });
      assert.equal(ok.statusCode, 200);
      assert.match(String(ok.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const { samples, types } = parseExposition(ok.body);
      for (const name of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'process_start_time_seconds',
      ])
        assert.ok(
          samples.some((s) => s.name === name),
          name,
        );
      assert.equal(types.get('gatehouse_http_requests_total'), 'counter');
      assert.equal(types.get('gatehouse_http_request_duration_seconds'), 'histogram');
      assert.equal(types.get('gatehouse_logins_total'), 'counter');
      assert.equal(types.get('gatehouse_token_authentications_total'), 'counter');
      for (const gauge of [
        'gatehouse_mail_outbox_pending',
        'gatehouse_webhook_outbox_pending',
        'gatehouse_password_hash_queue',
      ]) {
        assert.equal(types.get(gauge), 'gauge', gauge);
      }
    });

    test('web logins: a failure, a success, a throttled attempt and a two-factor one, each counted once', async () => {
      const user = await t.createUser();
      const [failed, success] = await delta(t, async () => {
        const browser = await loginBrowser(t);
        const refused = await browser.postJson('/login', { email: user.email, password: 'wrong password' });
        assert.equal(refused.statusCode, 422);
        assert.equal((await browser.postJson('/login', user)).statusCode, 204);
      }, [logins('web', 'failed'), logins('web', 'success')]);
      assert.deepEqual([failed, success], [1, 1]);

      // LOGIN_MAX_ATTEMPTS=2 here: two failures, then the third attempt is throttled.
      const other = await t.createUser();
      const moved = await delta(t, async () => {
        const browser = await loginBrowser(t);
        for (const status of [422, 422, 429]) {
          const answer = await browser.postJson('/login', { email: other.email, password: 'not it at all' });
          assert.equal(answer.statusCode, status);
        }
      }, [logins('web', 'failed'), logins('web', 'throttled'), logins('web', 'success')]);
      assert.deepEqual(moved, [2, 1, 0]);

      const guarded = await t.createUser();
      const enrolled = await enableTwoFactor(t, guarded);
      const twoFactor = await delta(t, async () => {
        const browser = await loginBrowser(t);
        const first = await browser.postJson('/login', guarded);
        assert.deepEqual(first.json(), { two_factor: true });
        const wrong = await browser.postJson('/two-factor-challenge', { code: '000000' });
        assert.equal(wrong.statusCode, 422);
        const right = await browser.postJson('/two-factor-challenge', { code: enrolled.code(1) });
        assert.equal(right.statusCode, 204, right.body);
      }, [logins('web', 'two_factor'), logins('web', 'failed'), logins('web', 'success')]);
      // The password step asks for the second factor; each challenge is an attempt of its own.
      assert.deepEqual(twoFactor, [1, 1, 1]);
    });

    test('passkey sign-ins count under the web guard: a refused one and a good one', async () => {
      const { authenticator } = await userWithPasskey(t);
      const moved = await delta(t, async () => {
        const { browser, options } = await guestWithOptions(t);
        const forged = authenticator.get(options, { badSignature: true });
        assert.equal((await browser.postJson('/passkeys/login', { credential: forged })).statusCode, 422);
        const again = await guestWithOptions(t);
        const good = authenticator.get(again.options);
        const answer = await again.browser.postJson('/passkeys/login', { credential: good });
        assert.equal(answer.statusCode, 204, answer.body);
      }, [logins('web', 'failed'), logins('web', 'success')]);
      assert.deepEqual(moved, [1, 1]);
    });

    test('API token logins and the panel login count under their guards', async () => {
      const user = await t.createUser();
      const guarded = await t.createUser();
      await enableTwoFactor(t, guarded);
      const admin = await t.createUser({ panelAccess: true });
      const moved = await delta(t, async () => {
        const post = (payload: object) => t.app.inject({ method: 'POST', url: '/api/tokens', payload });
        assert.equal((await post({ ...user, device_name: 'a' })).statusCode, 200);
        assert.equal(
          (await post({ email: user.email, password: 'wrong one', device_name: 'a' })).statusCode,
          401,
        );
        const asked = await post({ email: guarded.email, password: guarded.password, device_name: 'a' });
        assert.equal(asked.json().two_factor, true);
        const panel = await loginBrowser(t, '/admin/login');
        assert.equal(
          (await panel.postJson('/admin/login', { email: admin.email, password: 'nope nope' })).statusCode,
          422,
        );
        assert.equal(
          (await panel.postJson('/admin/login', { email: admin.email, password: admin.password })).statusCode,
          204,
        );
      }, [
        logins('api', 'success'),
        logins('api', 'failed'),
        logins('api', 'two_factor'),
        logins('admin', 'failed'),
        logins('admin', 'success'),
        logins('web', 'success'),
      ]);
      assert.deepEqual(moved, [1, 1, 1, 1, 1, 0]);
    });

    test('bearer checks: a good token and a bad one; requests counted by route pattern, method and status', async () => {
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password);
      const tokenId = token.split('|')[0]!;
      const moved = await delta(t, async () => {
        const api = (authorization: string) => t.app.inject({ url: '/api/user', headers: { authorization } });
        assert.equal((await api(`Bearer ${token}`)).statusCode, 200);
        assert.equal((await api(`Bearer ${token}`)).statusCode, 200);
        assert.equal((await api(`Bearer ${tokenId}|${'x'.repeat(48)}`)).statusCode, 401);
        assert.equal((await api('Basic abc')).statusCode, 401);
        const missing = await t.app.inject({ url: `/no/such/page/${user.email}` });
        assert.equal(missing.statusCode, 404);
        const revoke = await t.app.inject({
          method: 'DELETE',
          url: '/api/tokens/987654321',
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(revoke.statusCode, 404);
      }, [
        ['gatehouse_token_authentications_total', { result: 'success' }],
        ['gatehouse_token_authentications_total', { result: 'failed' }],
        ['gatehouse_http_requests_total', { route: '/api/user', method: 'GET', status: '200' }],
        ['gatehouse_http_requests_total', { route: '/api/user', method: 'GET', status: '401' }],
        [
          'gatehouse_http_request_duration_seconds_count',
          { route: '/api/user', method: 'GET', status: '200' },
        ],
        ['gatehouse_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }],
        ['gatehouse_http_requests_total', { route: '/api/tokens/:id', method: 'DELETE', status: '404' }],
      ]);
      // Basic is not a bearer token: no token check at all.
      assert.deepEqual(moved, [3, 1, 2, 2, 2, 1, 1]);
      const text = (await t.app.inject({ url: '/metrics', headers: auth })).body;
      for (const personal of [
        user.email,
        token,
        tokenId === '1' ? 'no-such' : `/${tokenId}`,
        '987654321',
        '127.0.0.1',
        '/no/such',
      ])
        assert.ok(!text.includes(personal), `the exposition does not contain ${personal}`);
      const labelled = parseExposition(text).samples.filter((s) =>
        s.name.startsWith('gatehouse_http_requests'),
      );
      for (const sample of labelled) assert.match(sample.labels['route']!, /^(\/[a-z0-9:_.\-/]*|unmatched)$/);
    });

    test('the gauges read the outboxes and the hashing queue', async () => {
      const browser = await loginBrowser(t, '/register');
      const email = `gauge-${Date.now()}@example.com`;
      await browser.postJson('/register', {
        name: 'Gauge',
        email,
        password: 'a long enough passphrase',
        password_confirmation: 'a long enough passphrase',
      });
      const samples = await scrape(t);
      const pending = await t.db
        .selectFrom('mail_outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('sent_at', 'is', null)
        .where('failed_at', 'is', null)
        .executeTakeFirstOrThrow();
      assert.ok(Number(pending.n) >= 1);
      assert.equal(sampleValue(samples, 'gatehouse_mail_outbox_pending'), Number(pending.n));
      assert.equal(sampleValue(samples, 'gatehouse_webhook_outbox_pending'), 0);
      assert.equal(sampleValue(samples, 'gatehouse_password_hash_queue'), 0);
    });
  },
  { env: { METRICS_TOKEN: TOKEN, LOGIN_MAX_ATTEMPTS: '2' }, overrides: { clock } },
);

describe('GET /metrics without METRICS_TOKEN', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(() => t?.close());

  test('→ 404, token or not, and nothing is counted', async () => {
    for (const headers of [{}, auth]) {
      const answer = await t.app.inject({
        url: '/metrics',
        headers: { ...headers, accept: 'application/json' },
      });
      assert.equal(answer.statusCode, 404);
    }
    assert.equal(t.services.metrics.enabled, false);
  });
});

describe('a login refused by the per-IP budget counts as throttled', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', { env: { METRICS_TOKEN: TOKEN, IP_AUTH_LIMIT: '2' } });
  });
  after(() => t?.close());

  test('the third request from one address: 429, counted once as throttled, no failure counted', async () => {
    const user = await t.createUser();
    const moved = await delta(t, async () => {
      for (const status of [401, 401, 429]) {
        const answer = await t.app.inject({
          method: 'POST',
          url: '/api/tokens',
          remoteAddress: '10.9.8.7',
          payload: { email: user.email, password: 'wrong password', device_name: 'x' },
        });
        assert.equal(answer.statusCode, status);
      }
    }, [logins('api', 'failed'), logins('api', 'throttled')]);
    assert.deepEqual(moved, [2, 1]);
    const text = (await t.app.inject({ url: '/metrics', headers: auth })).body;
    assert.ok(!text.includes('10.9.8.7'), 'no IP address in any label');
  });

  test('a passkey sign-in the budget refuses counts as a throttled web login', async () => {
    const browser = await loginBrowser(t);
    const moved = await delta(t, async () => {
      for (const status of [422, 422, 429]) {
        const answer = await browser.postJson('/passkeys/login', { credential: { id: 'nope' } });
        assert.equal(answer.statusCode, status, answer.body);
      }
    }, [logins('web', 'throttled')]);
    assert.deepEqual(moved, [1]);
  });
});

describe('a token login refused by API_RATE_LIMIT counts as throttled', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite', {
      env: { METRICS_TOKEN: TOKEN, API_RATE_LIMIT: '2', IP_AUTH_LIMIT: '0' },
    });
  });
  after(() => t?.close());

  test('the third POST /api/tokens from one address: 429, counted once as throttled', async () => {
    const user = await t.createUser();
    const moved = await delta(t, async () => {
      for (const status of [401, 401, 429]) {
        const answer = await t.app.inject({
          method: 'POST',
          url: '/api/tokens',
          remoteAddress: '10.9.8.9',
          payload: { email: user.email, password: 'wrong password', device_name: 'x' },
        });
        assert.equal(answer.statusCode, status);
      }
    }, [logins('api', 'failed'), logins('api', 'throttled')]);
    assert.deepEqual(moved, [2, 1]);
  });
});
