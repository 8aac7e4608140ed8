import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import * as client from 'openid-client';
import { fakeClock } from '../../src/lib/clock.ts';
import { describeApp, describeEachDialect, type TestApp } from '../helpers/app.ts';
import {
  approveDevice,
  ISSUER,
  injectFetch,
  registerClient,
  signedInBrowser,
  xsrfOf,
} from '../helpers/oidc.ts';

/**
 * The device authorization grant (RFC 8628; docs/guides/oidc-provider.md "Device flow") through HTTP:
 * openid-client as the device, a signed-in browser at /device typing the code and consenting; the poll
 * answers exactly as §3.5 says (slow_down counted from the previous poll, accepted or refused); typing
 * codes is throttled; and 20 polls at once of an approved code give tokens once, on every dialect.
 */
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const clock = fakeClock();
const startedAt = Date.now();
// The pace of polls is counted on the rate-limit store, which follows the app's clock: real time,
// moved forward by the tests instead of sleeping.
const options = { overrides: { clock: { now: () => clock.now() + (Date.now() - startedAt) } } };

async function device(app: TestApp) {
  const rp = await registerClient(app, {
    public: true,
    redirectUris: [],
    grantTypes: [DEVICE, 'refresh_token'],
    scope: 'openid profile offline_access posts:read',
  });
  const config = await client.discovery(new URL(ISSUER), rp.clientId, {}, client.None(), {
    [client.customFetch]: injectFetch(app.app) as never,
    execute: [client.allowInsecureRequests],
  });
  return { rp, config };
}

async function poll(app: TestApp, clientId: string, deviceCode: string) {
  const response = await app.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: DEVICE,
      device_code: deviceCode,
      client_id: clientId,
    }).toString(),
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

await describeApp(
  'oauth device flow',
  (ctx) => {
    test('openid-client as the device: the RFC 8628 answer, a person approves at /device, the poll gets tokens', async () => {
      const app = ctx();
      const user = await app.createUser();
      const { config } = await device(app);
      const started = await client.initiateDeviceAuthorization(config, {
        scope: 'openid profile offline_access posts:read',
      });
      assert.match(started.user_code, USER_CODE);
      assert.equal(started.verification_uri, `${ISSUER}/device`);
      assert.equal(started.verification_uri_complete, `${ISSUER}/device?user_code=${started.user_code}`);
      assert.equal(started.expires_in, 600);
      assert.equal(started.interval, 5);

      const guest = await app.app.inject({ url: '/device' });
      assert.equal(guest.statusCode, 302, 'a guest signs in first');
      assert.match(String(guest.headers.location), /\/login/);

      const browser = await signedInBrowser(app, user.email, user.password);
      const done = await approveDevice(browser, started.user_code);
      assert.match(done.body, /Device connected/);

      clock.advance(5_000);
      const tokens = await client.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 });
      assert.ok(tokens.refresh_token, 'offline_access gives a refresh token');
      assert.equal(tokens.claims()?.sub, String(user.id));
      const half = createHash('sha256').update(tokens.access_token).digest().subarray(0, 16);
      assert.equal(tokens.claims()?.['at_hash'], half.toString('base64url'), 'at_hash, as after a code');
      const me = await app.app.inject({
        url: '/api/user',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().id, user.id);
    });

    test('polling: authorization_pending, slow_down (and the interval grows by 5 s), access_denied, expired_token', async () => {
      const app = ctx();
      const user = await app.createUser();
      const { rp, config } = await device(app);
      const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
      const first = await poll(app, rp.clientId, started.device_code);
      assert.deepEqual([first.status, first.body['error']], [400, 'authorization_pending']);
      const tooSoon = await poll(app, rp.clientId, started.device_code);
      assert.deepEqual([tooSoon.status, tooSoon.body['error']], [400, 'slow_down']);
      clock.advance(10_000);
      assert.equal(
        (await poll(app, rp.clientId, started.device_code)).body['error'],
        'authorization_pending',
      );
      clock.advance(6_000);
      assert.equal(
        (await poll(app, rp.clientId, started.device_code)).body['error'],
        'slow_down',
        'after a slow_down the interval is 10 s',
      );
      clock.advance(15_000);
      const browser = await signedInBrowser(app, user.email, user.password);
      await approveDevice(browser, started.user_code, 'deny');
      assert.equal((await poll(app, rp.clientId, started.device_code)).body['error'], 'access_denied');

      const late = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
      const row = await app.db
        .selectFrom('oauth_models')
        .select(['id_hash', 'payload'])
        .where('kind', '=', 'DeviceCode')
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      const payload = { ...JSON.parse(row.payload), exp: Math.floor(Date.now() / 1000) - 1 };
      await app.db
        .updateTable('oauth_models')
        .set({ payload: JSON.stringify(payload) })
        .where('id_hash', '=', row.id_hash)
        .execute();
      assert.equal((await poll(app, rp.clientId, late.device_code)).body['error'], 'expired_token');
      const unknown = await poll(app, rp.clientId, 'no-such-device-code');
      assert.deepEqual([unknown.status, unknown.body['error']], [400, 'invalid_grant']);
      // An unknown code is not paced (it leaves no window in the rate-limit store): asked again at
      // once, it is invalid_grant again, not slow_down.
      const again = await poll(app, rp.clientId, 'no-such-device-code');
      assert.deepEqual([again.status, again.body['error']], [400, 'invalid_grant']);
    });

    test('every poll restarts the clock, a refused one too: slow_down is judged from the previous poll', async () => {
      const app = ctx();
      const { rp, config } = await device(app);
      const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
      const pollAfter = async (ms: number) => {
        clock.advance(ms);
        return (await poll(app, rp.clientId, started.device_code)).body['error'];
      };
      assert.equal(await pollAfter(0), 'authorization_pending', 't=0, interval 5 s');
      assert.equal(await pollAfter(2_000), 'slow_down', 't=2, interval now 10 s');
      assert.equal(await pollAfter(2_000), 'slow_down', 't=4, still too fast: interval now 15 s');
      assert.equal(
        await pollAfter(12_000),
        'slow_down',
        't=16: 16 s after the accepted poll, but 12 s after the refused one; interval now 20 s',
      );
      assert.equal(await pollAfter(20_000), 'authorization_pending', 't=36: 20 s after the refused one');
      assert.equal(await pollAfter(19_000), 'slow_down', 't=55: the interval stays 20 s; now 25 s');
      assert.equal(await pollAfter(25_000), 'authorization_pending', 't=80: 25 s after the refused one');
    });

    test('a wrong code is said so on the page; typing codes is throttled (10 a minute)', async () => {
      const app = ctx();
      const user = await app.createUser();
      const browser = await signedInBrowser(app, user.email, user.password);
      let page = await browser.get('/device');
      const wrong = await browser.post('/device', { xsrf: xsrfOf(page.body), user_code: 'BCDF-GHJK' });
      assert.equal(wrong.statusCode, 200);
      assert.match(wrong.body, /No device is waiting for that code/);
      assert.match(wrong.body, /aria-invalid="true"/);
      let status = 200;
      for (let i = 0; i < 12 && status !== 429; i++) {
        page = await browser.get('/device');
        status = (await browser.post('/device', { xsrf: xsrfOf(page.body), user_code: 'BCDF-GHJK' }))
          .statusCode;
      }
      assert.equal(status, 429);
    });

    test('odd requests to the device pages are 4xx, never 5xx (a signed-in browser, a fresh one)', async () => {
      const app = ctx();
      const user = await app.createUser();
      const browser = await signedInBrowser(app, user.email, user.password);
      const answers = [
        await browser.get('/device/a%00b'),
        await browser.get('/device/unknown-interaction'),
        await browser.post('/device?q=a%00b', {}),
        await browser.post('/device', { xsrf: 'forged', user_code: 'BCDF-GHJK' }),
        await app.app.inject({ url: '/device/unknown-interaction' }),
      ];
      for (const [i, answer] of answers.entries()) {
        assert.ok(answer.statusCode < 500, `${i}: ${answer.statusCode} ${answer.body.slice(0, 200)}`);
      }
    });

    test('a client without the grant cannot start the flow: unauthorized_client', async () => {
      const app = ctx();
      const rp = await registerClient(app, { public: true });
      const response = await app.app.inject({
        method: 'POST',
        url: '/oauth/device/auth',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `client_id=${rp.clientId}&scope=openid`,
      });
      assert.equal(response.statusCode, 400);
      // RFC 8628 §3.2 answers with RFC 6749 §5.2's errors: this one is unauthorized_client.
      assert.equal(response.json().error, 'unauthorized_client');
    });

    test('a scope the client may not ask for, or one nobody knows, is invalid_scope before a code is issued', async () => {
      const app = ctx();
      const { rp } = await device(app);
      for (const scope of ['openid email', 'openid no-such-scope']) {
        const response = await app.app.inject({
          method: 'POST',
          url: '/oauth/device/auth',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ client_id: rp.clientId, scope }).toString(),
        });
        assert.equal(response.statusCode, 400, `${scope}: ${response.body}`);
        assert.equal(response.json().error, 'invalid_scope', scope);
      }
    });
  },
  options,
);

await describeEachDialect(
  'oauth device flow: concurrent polls',
  (ctx) => {
    test('20 polls at once of one approved code give tokens exactly once', async () => {
      const app = ctx();
      const user = await app.createUser();
      const { rp, config } = await device(app);
      const started = await client.initiateDeviceAuthorization(config, { scope: 'openid offline_access' });
      const browser = await signedInBrowser(app, user.email, user.password);
      await approveDevice(browser, started.user_code);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => poll(app, rp.clientId, started.device_code)),
      );
      const issued = answers.filter((answer) => answer.status === 200);
      assert.equal(
        issued.length,
        1,
        JSON.stringify(answers.map((answer) => answer.body['error'] ?? 'tokens')),
      );
      assert.ok(answers.every((answer) => answer.status === 200 || answer.status === 400));
      const refreshed = await app.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: String(issued[0]!.body['refresh_token']),
          client_id: rp.clientId,
        }).toString(),
      });
      assert.equal(refreshed.statusCode, 200, 'the tokens given are alive: no loser revoked them');
    });
  },
  options,
);
