import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countRows, describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

/** A fresh browser on the login page: it holds a valid CSRF token for POST /login. */
async function atLogin(t: TestApp): Promise<Browser> {
  const browser = new Browser(t.app);
  await browser.get('/login');
  assert.ok(browser.csrf, 'the login page hands out a CSRF token');
  return browser;
}

/**
 * docs/security.md "Cross-site requests": a state-changing request whose Origin is present and none of
 * ours (APP_URL's origin, SANCTUM_STATEFUL_DOMAINS, FORWARD_AUTH_DOMAINS), or that carries
 * `Sec-Fetch-Site: cross-site`, gets 419 even with a valid CSRF token; bearer-token API requests are
 * not affected.
 */
await describeEachDialect(
  'Cross-site requests',
  (ctx) => {
    test('cross-site requests: a foreign Origin or Sec-Fetch-Site cross-site is 419 despite a valid token', async () => {
      const t = ctx();
      const user = await t.createUser();
      const refused: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'http://gatehouse.test.evil.example' },
        { origin: 'null' },
        { origin: 'null', 'sec-fetch-site': 'same-site' },
        { origin: 'null', 'sec-fetch-site': 'cross-site' },
        { origin: 'not a url' },
        // Another host than the one the request was sent to.
        { origin: 'http://other.internal:8080', host: 'gatehouse.internal:8080' },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'http://gatehouse.test', 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of refused) {
        const browser = await atLogin(t);
        const answer = await browser.post('/login', { email: user.email, password: user.password }, headers);
        assert.equal(answer.statusCode, 419, JSON.stringify(headers));
        assert.equal((await browser.get('/dashboard')).statusCode, 302, 'not logged in');
      }
      // JSON and the other state-changing methods alike.
      const browser = await atLogin(t);
      const json = await browser.postJson(
        '/login',
        { email: user.email, password: user.password },
        {
          origin: 'https://evil.example',
        },
      );
      assert.equal(json.statusCode, 419);
      assert.deepEqual(json.json(), { message: 'CSRF token mismatch.' });
    });

    test('cross-site requests: our own origins and same-site requests pass', async () => {
      const t = ctx();
      const user = await t.createUser();
      const allowed: Record<string, string>[] = [
        {},
        { origin: 'http://gatehouse.test' },
        { origin: 'http://gatehouse.test', 'sec-fetch-site': 'same-origin' },
        // APP_URL's host is a stateful front end by default (Sanctum), on either scheme.
        { origin: 'https://gatehouse.test' },
        { 'sec-fetch-site': 'same-site' },
        { 'sec-fetch-site': 'none' },
        // A SANCTUM_STATEFUL_DOMAINS front end and a FORWARD_AUTH_DOMAINS host.
        { origin: 'http://localhost:3000' },
        { origin: 'https://app.example.com' },
        // The origin the request itself went to (an instance reached by its address, not APP_URL).
        { origin: 'http://gatehouse.internal:8080', host: 'gatehouse.internal:8080' },
        { origin: 'http://127.0.0.1:39999', host: '127.0.0.1:39999', 'sec-fetch-site': 'same-origin' },
        // A form on a page sent with Referrer-Policy: no-referrer (the reset page): Chromium posts it
        // with Origin: null, and its fetch metadata says same-origin.
        { origin: 'null', 'sec-fetch-site': 'same-origin' },
      ];
      for (const headers of allowed) {
        const browser = await atLogin(t);
        const answer = await browser.post('/login', { email: user.email, password: user.password }, headers);
        assert.equal(answer.statusCode, 302, JSON.stringify(headers));
        assert.equal((await browser.get('/dashboard')).statusCode, 200, JSON.stringify(headers));
      }
    });

    test('cross-site requests: bearer-token API requests are not affected', async () => {
      const t = ctx();
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password);
      const before = await countRows(t.db, 'posts');
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: {
          authorization: `Bearer ${token}`,
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
        },
        payload: { title: 'From elsewhere', body: 'A bearer token is no ambient credential.' },
      });
      assert.equal(created.statusCode, 201);
      assert.equal(await countRows(t.db, 'posts'), before + 1);
    });
  },
  { env: { FORWARD_AUTH_DOMAINS: '*.example.com' } },
);
