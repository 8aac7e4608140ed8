import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDialect } from '../helpers/app.ts';

const METRICS_TOKEN = 'metrics-secret-token-0123456789';

/**
 * docs/security.md "Headers": HSTS under an https APP_URL; every Bearer challenge names the realm
 * (APP_NAME); a method a route does not have is 405 with Allow, before CSRF and authentication; the
 * language switcher's links never leave the site.
 */
await describeEachDialect(
  'Headers (https APP_URL)',
  (ctx) => {
    test('HSTS: Strict-Transport-Security on every response under https', async () => {
      const { app } = ctx();
      const answers = [
        await app.inject({ url: '/login' }),
        await app.inject({ url: '/api/user' }),
        await app.inject({ url: '/no-such-page' }),
        await app.inject({ url: '/assets/app.css' }),
        await app.inject({ method: 'POST', url: '/login', payload: { email: 'a@b.c' } }),
        await app.inject({ method: 'TRACE' as 'GET', url: '/login' }),
      ];
      for (const answer of answers) {
        assert.equal(answer.headers['strict-transport-security'], 'max-age=31536000');
      }
    });

    test('WWW-Authenticate realm: every Bearer challenge names APP_NAME, with error= as in docs/reference/errors.md', async () => {
      const { app, createUser, issueToken } = ctx();
      const realm = 'Bearer realm="Acme \\"Gate\\" house"';
      const user = await createUser();
      const token = await issueToken(user.email, user.password, { abilities: ['posts:read'] });
      const none = await app.inject({ url: '/api/user', headers: { accept: 'application/json' } });
      assert.equal(none.statusCode, 401);
      assert.equal(none.headers['www-authenticate'], realm);
      const wrong = await app.inject({ url: '/api/user', headers: { authorization: 'Bearer 1|nope' } });
      assert.equal(wrong.headers['www-authenticate'], `${realm}, error="invalid_token"`);
      const scope = await app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: { authorization: `Bearer ${token}` },
        payload: { title: 't', body: 'b' },
      });
      assert.equal(scope.statusCode, 403);
      assert.equal(scope.headers['www-authenticate'], `${realm}, error="insufficient_scope"`);
      const forward = await app.inject({ url: '/auth/request', headers: { accept: 'application/json' } });
      assert.equal(forward.statusCode, 401);
      assert.equal(forward.headers['www-authenticate'], realm);
      const metrics = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong' } });
      assert.equal(metrics.statusCode, 401);
      assert.equal(metrics.headers['www-authenticate'], `${realm}, error="invalid_token"`);
    });
  },
  {
    env: { APP_URL: 'https://gatehouse.test', APP_NAME: 'Acme "Gate" house', METRICS_TOKEN },
  },
);

await describeEachDialect('Headers (http APP_URL)', (ctx) => {
  test('HSTS: not sent when APP_URL is http', async () => {
    const answer = await ctx().app.inject({ url: '/login' });
    assert.equal(answer.headers['strict-transport-security'], undefined);
  });

  test('405 with Allow: an odd method on a route is refused before CSRF and authentication', async () => {
    const { app } = ctx();
    const cases: [string, string, string][] = [
      ['TRACE', '/login', 'GET, HEAD, POST, OPTIONS'],
      ['PROPFIND', '/login', 'GET, HEAD, POST, OPTIONS'],
      // No CSRF token and no session: 405 all the same (not 419).
      ['DELETE', '/login', 'GET, HEAD, POST, OPTIONS'],
      ['PUT', '/logout', 'POST, OPTIONS'],
      // No credentials: 405 (not 401), the route table answers before any guard.
      ['DELETE', '/api/user', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/dashboard', 'GET, HEAD'],
    ];
    for (const [method, url, allow] of cases) {
      for (const accept of ['application/json', 'text/html']) {
        const answer = await app.inject({ method: method as 'GET', url, headers: { accept } });
        assert.equal(answer.statusCode, 405, `${method} ${url} (${accept})`);
        assert.equal(answer.headers.allow, allow, `${method} ${url}`);
        if (accept === 'application/json')
          assert.deepEqual(answer.json(), { message: 'Method Not Allowed.' });
      }
    }
    // A path with no route at all has no methods to list: no 405 there.
    const nowhere = await app.inject({ method: 'TRACE' as 'GET', url: '/no-such-page' });
    assert.notEqual(nowhere.statusCode, 405);
    assert.equal(nowhere.headers.allow, undefined);
  });

  test('language links never leave the site, on 404 pages too', async () => {
    const { app } = ctx();
    for (const url of [
      '//evil.example',
      '//evil.example/x?q=1',
      '/\\evil.example',
      '/\\/evil.example',
      '///evil.example',
    ]) {
      const page = await app.inject({ url });
      const links = [...page.body.matchAll(/<a href="([^"]*)" hreflang/g)].map((m) => m[1]!);
      assert.equal(links.length, 4, url);
      for (const link of links) {
        assert.match(link, /^\/[^/\\]/, `${url} → ${link}`);
        const resolved = new URL(link.replaceAll('&amp;', '&'), 'https://gatehouse.test//evil.example');
        assert.equal(resolved.host, 'gatehouse.test', `${url} → ${link}`);
      }
    }
  });
});
