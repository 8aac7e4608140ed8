import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const SESSION = '__Secure-gatehouse_session';
const APP = 'https://app.example.com';

/** A browser signed in (remembered) on auth.example.com; the login's Set-Cookie headers by name. */
async function signedIn(t: TestApp) {
  const user = await t.createUser({ name: 'Victim Name' });
  const browser = new Browser(t.app);
  await browser.get('/login');
  const login = await browser.post('/login', { email: user.email, password: user.password, remember: '1' });
  assert.equal(login.statusCode, 302, login.body);
  await browser.get('/dashboard');
  return { user, browser, cookies: new Map(login.cookies.map((c) => [c.name, c])) };
}

const nameOf = async (t: TestApp, id: number) =>
  (await t.db.selectFrom('users').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name;

/**
 * docs/integrations/forward-auth.md "SESSION_DOMAIN": only the session cookie is domain-wide — remember-me,
 * XSRF-TOKEN, the device cookie and the intended URL stay host-only — and the Origin exemption for
 * FORWARD_AUTH_DOMAINS hosts covers only POST /login and POST /logout. The audit's repro: a script on a
 * protected app (app.example.com) read XSRF-TOKEN and posted `_method=PUT` to /user/profile-information
 * with `Origin: https://app.example.com`: 302, the name changed.
 */
await describeEachDialect(
  'SESSION_DOMAIN: only the session cookie is shared, and siblings may only log in and out',
  (ctx) => {
    test('only the session cookie carries Domain', async () => {
      const { cookies } = await signedIn(ctx());
      assert.equal(cookies.get(SESSION)?.domain, 'example.com', 'the session is shared with siblings');
      const remember = cookies.get('__Host-gatehouse_remember');
      assert.ok(remember, `remember-me is __Host- (host-only): ${[...cookies.keys()].join(', ')}`);
      assert.equal(remember.domain, undefined);
      for (const name of ['XSRF-TOKEN', 'gatehouse_device']) {
        assert.ok(cookies.has(name), name);
        assert.equal(cookies.get(name)!.domain, undefined, `${name} stays host-only`);
      }
      // Any cookie of a domain-wide name from before is cleared on that domain.
      const legacy = cookies.get('__Secure-gatehouse_remember');
      assert.ok(legacy === undefined || (legacy.domain === 'example.com' && legacy.value === ''));
    });

    test('a sibling app’s page cannot change the account, even with the CSRF token; it may still log out', async () => {
      const t = ctx();
      const { user, browser } = await signedIn(t);
      const token = browser.cookies.get('XSRF-TOKEN');
      assert.ok(token);
      const change = await t.app.inject({
        method: 'POST',
        url: '/user/profile-information',
        cookies: Object.fromEntries(browser.cookies),
        headers: { origin: APP, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          _method: 'PUT',
          _token: token,
          name: 'Mallory',
          email: user.email,
        }).toString(),
      });
      assert.equal(change.statusCode, 419, change.body);
      assert.equal(await nameOf(t, user.id), 'Victim Name');
      for (const [method, url] of [
        ['POST', '/user/confirm-password'],
        ['DELETE', '/user/other-browser-sessions'],
        ['POST', '/user/api-tokens'],
      ] as const) {
        const answer: { statusCode: number; body: string } = await t.app.inject({
          method,
          url,
          cookies: Object.fromEntries(browser.cookies),
          headers: { origin: APP, 'x-xsrf-token': token, accept: 'application/json' },
          payload: { password: user.password, name: 'x' },
        });
        assert.equal(answer.statusCode, 419, `${method} ${url}: ${answer.body}`);
      }

      // POST /login and POST /logout from a protected app stay allowed.
      const login = await t.app.inject({
        method: 'POST',
        url: '/login',
        cookies: Object.fromEntries(browser.cookies),
        headers: { origin: APP, 'x-xsrf-token': token, accept: 'application/json' },
        payload: { email: user.email, password: user.password },
      });
      assert.equal(login.statusCode, 204, login.body);
      const fresh = new Map(login.cookies.map((c) => [c.name, c.value]));
      const after = { ...Object.fromEntries(browser.cookies), ...Object.fromEntries(fresh) };
      const logout = await t.app.inject({
        method: 'POST',
        url: '/logout',
        cookies: after,
        headers: { origin: APP, 'x-xsrf-token': fresh.get('XSRF-TOKEN')! },
      });
      assert.equal(logout.statusCode, 302, logout.body);
    });
  },
  {
    env: {
      APP_URL: 'https://auth.example.com',
      SESSION_DOMAIN: '.example.com',
      FORWARD_AUTH_DOMAINS: '*.example.com',
      IP_AUTH_LIMIT: '0',
    },
  },
);
