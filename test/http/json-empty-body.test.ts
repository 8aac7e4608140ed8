import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseRoutes } from '../fuzz/requests.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { Browser, webLogin } from '../helpers/browser-session.ts';

/**
 * docs/reference/errors.md: a request with `Content-Type: application/json` and an empty body is read as `{}`,
 * as Laravel reads it (fetch() and axios send exactly that for a POST without data). Body parsing is the
 * same on every dialect, so SQLite is enough.
 */
const MALFORMED = 'The request body is not valid JSON.';
const emptyJson = { 'content-type': 'application/json', accept: 'application/json' };

describe('Content-Type: application/json with an empty body is {}', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(async () => {
    await t?.close();
  });

  test('POST /api/tokens: the same 422 as for {}', async () => {
    const empty = await t.app.inject({ method: 'POST', url: '/api/tokens', headers: emptyJson, payload: '' });
    const braces = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: emptyJson,
      payload: '{}',
    });
    assert.equal(braces.statusCode, 422);
    assert.equal(empty.statusCode, 422, empty.body);
    assert.deepEqual(empty.json(), braces.json());
  });

  test('JSON whitespace only is no value either; anything else that is not JSON stays 400', async () => {
    for (const payload of [' ', '\r\n', '\t \n']) {
      const answer = await t.app.inject({ method: 'POST', url: '/api/tokens', headers: emptyJson, payload });
      assert.equal(answer.statusCode, 422, JSON.stringify(payload));
    }
    for (const payload of ['\u00a0', 'null x', '{']) {
      const answer = await t.app.inject({ method: 'POST', url: '/api/tokens', headers: emptyJson, payload });
      assert.equal(answer.statusCode, 400, JSON.stringify(payload));
      assert.deepEqual(answer.json(), { message: MALFORMED });
    }
  });

  test('POST /user/two-factor-authentication with an empty JSON body enables two-factor', async () => {
    const user = await t.createUser();
    const browser = await webLogin(t.app, user);
    const confirm = await browser.postJson('/user/confirm-password', { password: user.password });
    assert.equal(confirm.statusCode, 204);
    const enable = await emptyPost(browser, '/user/two-factor-authentication');
    assert.equal(enable.statusCode, 204, enable.body);
    const secret = await browser.get('/user/two-factor-secret-key', { accept: 'application/json' });
    assert.equal(secret.statusCode, 200);
  });

  test('POST /logout with an empty JSON body signs out (204)', async () => {
    const user = await t.createUser();
    const browser = await webLogin(t.app, user);
    const logout = await emptyPost(browser, '/logout');
    assert.equal(logout.statusCode, 204, logout.body);
    const after = await browser.get('/api/user', { accept: 'application/json' });
    assert.equal(after.statusCode, 401);
  });

  test('no route answers an empty JSON body with 400, for a guest, a session or a token', async () => {
    const user = await t.createUser();
    const token = await t.issueToken(user.email, user.password);
    const routes = parseRoutes(t.app.printRoutes({ commonPrefix: false }))
      .filter((r) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method))
      // The OAuth endpoints take form posts only (RFC 6749 §3.2, §4.1.3): JSON, empty or not, is their
      // invalid_request (docs/guides/oidc-provider.md). So does the device flow's code page (RFC 8628
      // §3.3), which the provider library reads as a form.
      .filter((r) => !r.url.startsWith('/oauth/') && r.url !== '/device' && !r.url.startsWith('/device/'))
      .map((r) => ({ method: r.method, url: r.url.replace(/:\w+/g, '1').replace('/*', '/x') }))
      // Signing out last keeps the session for the other routes.
      .sort((a, b) => Number(a.url === '/logout') - Number(b.url === '/logout'));
    assert.ok(routes.length > 30, `only ${routes.length} routes found`);
    const guest = new Browser(t.app);
    await guest.get('/login');
    const browser = await webLogin(t.app, user);
    const refused: string[] = [];
    for (const { method, url } of routes) {
      for (const [who, client, extra] of [
        ['guest', guest, {}],
        ['session', browser, {}],
        ['token', new Browser(t.app), { authorization: `Bearer ${token}` }],
      ] as const) {
        const answer = await emptyPost(client, url, method, extra);
        if (answer.statusCode === 400 || answer.statusCode >= 500)
          refused.push(`${who} ${method} ${url} → ${answer.statusCode} ${answer.body.slice(0, 80)}`);
      }
    }
    assert.deepEqual(refused, []);
  });
});

/** What fetch(url, {method, headers: {'Content-Type': 'application/json'}}) sends: no body at all. */
function emptyPost(browser: Browser, url: string, method = 'POST', headers: Record<string, string> = {}) {
  return browser.app.inject({
    method: method as 'POST',
    url,
    payload: '',
    headers: {
      ...emptyJson,
      cookie: browser.cookieHeader(),
      ...(browser.csrf ? { 'x-csrf-token': browser.csrf } : {}),
      ...headers,
    },
  });
}
