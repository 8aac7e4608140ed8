import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countRows, createTestApp, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser, webLogin } from '../helpers/browser-session.ts';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const signedIn = (t: TestApp, user: { email: string; password: string }, remember = false) =>
  webLogin(t.app, user, { remember });

/** Every row a forward-auth check could write, to prove it writes none. */
async function snapshot(t: TestApp) {
  return {
    sessions: await t.db.selectFrom('sessions').selectAll().orderBy('id').execute(),
    remember: await t.db.selectFrom('remember_tokens').selectAll().orderBy('id').execute(),
    tokens: await t.db.selectFrom('personal_access_tokens').selectAll().orderBy('id').execute(),
    audit: await countRows(t.db, 'audit_log'),
  };
}

await describeApp(
  'forward auth: /auth/request and /auth/forward (docs/integrations/forward-auth.md)',
  (ctx) => {
    for (const path of ['/auth/request', '/auth/forward']) {
      test(`${path}: a signed-in browser gets 200 with the user headers, never cached`, async () => {
        const t = ctx();
        const user = await t.createUser({ name: 'Ada Lovelace' });
        const browser = await signedIn(t, user);
        const answer = await browser.get(path, { accept: HTML });
        assert.equal(answer.statusCode, 200);
        assert.equal(answer.headers['x-auth-user-id'], String(user.id));
        assert.equal(answer.headers['x-auth-user-email'], user.email);
        assert.equal(answer.headers['x-auth-user-name'], 'Ada Lovelace');
        assert.equal(answer.headers['x-auth-user-verified'], 'true');
        assert.equal(answer.headers['cache-control'], 'no-store');
        assert.equal(answer.headers['set-cookie'], undefined, 'a check sends no cookie');
      });

      test(`${path}: a bearer token authenticates; a wrong one is 401 invalid_token`, async () => {
        const t = ctx();
        const user = await t.createUser({ verified: false });
        const token = await t.issueToken(user.email, user.password);
        const ok = await t.app.inject({ url: path, headers: { authorization: `Bearer ${token}` } });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.headers['x-auth-user-id'], String(user.id));
        assert.equal(ok.headers['x-auth-user-verified'], 'false');
        const wrong = await t.app.inject({
          url: path,
          headers: { authorization: `Bearer ${token.slice(0, -1)}x` },
        });
        assert.equal(wrong.statusCode, 401);
        assert.equal(wrong.headers['www-authenticate'], 'Bearer realm="Gatehouse", error="invalid_token"');
        assert.deepEqual(wrong.json(), { message: 'Unauthenticated.' });
        assert.equal(wrong.headers['cache-control'], 'no-store');
      });

      test(`${path}?verified=1: an unverified user gets 403, a verified one 200`, async () => {
        const t = ctx();
        const unverified = await t.createUser({ verified: false });
        const verified = await t.createUser();
        const refused = await (await signedIn(t, unverified)).get(`${path}?verified=1`);
        assert.equal(refused.statusCode, 403);
        assert.deepEqual(refused.json(), { message: 'Your email address is not verified.' });
        assert.equal(refused.headers['x-auth-user-id'], undefined);
        assert.equal(refused.headers['cache-control'], 'no-store');
        assert.equal((await (await signedIn(t, verified)).get(`${path}?verified=1`)).statusCode, 200);
        assert.equal((await (await signedIn(t, unverified)).get(`${path}?verified=0`)).statusCode, 200);
      });

      test(`${path}?ability=: a token without it gets 403; a session holds every ability`, async () => {
        const t = ctx();
        const user = await t.createUser();
        const writer = await t.issueToken(user.email, user.password, { abilities: ['posts:write'] });
        const reader = await t.issueToken(user.email, user.password, { abilities: ['posts:read'] });
        const all = await t.issueToken(user.email, user.password);
        const ask = (token: string) =>
          t.app.inject({ url: `${path}?ability=posts:read`, headers: { authorization: `Bearer ${token}` } });
        const refused = await ask(writer);
        assert.equal(refused.statusCode, 403);
        assert.deepEqual(refused.json(), { message: 'Invalid ability provided.' });
        assert.equal(
          refused.headers['www-authenticate'],
          'Bearer realm="Gatehouse", error="insufficient_scope"',
        );
        assert.equal((await ask(reader)).statusCode, 200);
        assert.equal((await ask(all)).statusCode, 200);
        assert.equal((await (await signedIn(t, user)).get(`${path}?ability=posts:read`)).statusCode, 200);
      });

      test(`${path}: malformed parameters are a clear 422 (a proxy configuration error), never a 500`, async () => {
        const t = ctx();
        const user = await t.createUser();
        const browser = await signedIn(t, user);
        for (const [query, field, message] of [
          ['ability=posts', 'ability', 'The ability field format is invalid.'],
          ['ability=Posts:Read', 'ability', 'The ability field format is invalid.'],
          ['ability=a:b&ability=c:d', 'ability', 'The ability field format is invalid.'],
          ['verified=yes', 'verified', 'The verified field must be true or false.'],
        ] as const) {
          const answer = await browser.get(`${path}?${query}`);
          assert.equal(answer.statusCode, 422, query);
          assert.deepEqual(answer.json(), { message, errors: { [field]: [message] } });
        }
      });

      test(`${path}: no writes per request, and a remembered browser is not restored here`, async () => {
        const t = ctx();
        const user = await t.createUser();
        const browser = await signedIn(t, user, true);
        const token = await t.issueToken(user.email, user.password);
        // The first use of a token or session stamps it (at most once a minute): let that happen first.
        await browser.get(path);
        await t.app.inject({ url: path, headers: { authorization: `Bearer ${token}` } });
        const before = await snapshot(t);
        for (let i = 0; i < 20; i++) {
          assert.equal((await browser.get(path)).statusCode, 200);
          const bearer = await t.app.inject({ url: path, headers: { authorization: `Bearer ${token}` } });
          assert.equal(bearer.statusCode, 200);
        }
        // Only the remember-me cookie: /login restores it (and rotates it); a proxy would drop the new
        // cookies of a restore made here, so the check answers 401 and changes nothing.
        const remembered = new Browser(t.app);
        remembered.cookies.set('gatehouse_remember', browser.cookies.get('gatehouse_remember')!);
        const guest = await remembered.get(path);
        assert.equal(guest.statusCode, 401);
        assert.equal(guest.headers['set-cookie'], undefined);
        assert.deepEqual(await snapshot(t), before);
      });

      test(`${path}: logout, a disabled account, another guard's session or a forged cookie → 401`, async () => {
        const t = ctx();
        const user = await t.createUser();
        const browser = await signedIn(t, user);
        assert.equal((await browser.get(path)).statusCode, 200);
        const stolen = browser.cookieHeader();
        assert.equal((await browser.post('/logout')).statusCode, 302);
        const old = await t.app.inject({ url: path, headers: { cookie: stolen } });
        assert.equal(old.statusCode, 401, 'the logged-out cookie no longer passes');

        const other = await t.createUser();
        const otherBrowser = await signedIn(t, other);
        await t.db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', other.id).execute();
        assert.equal((await otherBrowser.get(path)).statusCode, 401, 'disabled on the very next request');

        const admin = await t.createUser({ panelAccess: true });
        const panel = new Browser(t.app);
        await panel.get('/admin/login');
        assert.equal(
          (await panel.post('/admin/login', { email: admin.email, password: admin.password })).statusCode,
          302,
        );
        assert.equal((await panel.get(path)).statusCode, 401, 'the panel session is not the web session');

        const forged = await t.app.inject({
          url: path,
          headers: { cookie: `gatehouse_session=${'A'.repeat(43)}` },
        });
        assert.equal(forged.statusCode, 401);
      });

      test(`${path}: a user header in another spelling (X_Auth_User_Id, X.Auth.User.Id) is refused with 400`, async () => {
        const t = ctx();
        const user = await t.createUser();
        const browser = await signedIn(t, user);
        for (const forged of [
          'X_Auth_User_Id',
          'x.auth.user.email',
          'X-Auth_User-Name',
          'X-AUTH-USER.VERIFIED',
        ]) {
          for (const client of [browser, new Browser(t.app)]) {
            const answer = await client.get(path, { accept: HTML, [forged]: '999' });
            assert.equal(answer.statusCode, 400, forged);
            assert.deepEqual(answer.json(), {
              message:
                'The request carries an X-Auth-User-* header in another spelling (with _ or .); only the proxy sets those headers.',
            });
            assert.equal(answer.headers['x-auth-user-id'], undefined);
            assert.equal(answer.headers['cache-control'], 'no-store');
          }
        }
        // The hyphen spelling is the one the proxy replaces, and other names with _ or . are not user headers.
        const fine = await browser.get(path, {
          accept: HTML,
          'x-auth-user-id': '999',
          x_request_id: 'abc',
          'x.auth.user': 'x',
          x_auth_user_ids: 'x',
        });
        assert.equal(fine.statusCode, 200);
        assert.equal(fine.headers['x-auth-user-id'], String(user.id));
      });

      test(`${path}: a name beyond ASCII goes out as UTF-8 bytes, control characters dropped`, async () => {
        const t = ctx();
        const user = await t.createUser({ name: 'Zoë 李' });
        await t.db
          .updateTable('users')
          .set({ name: 'Zoë\r\nX-Evil: 1 李' })
          .where('id', '=', user.id)
          .execute();
        const answer = await (await signedIn(t, user)).get(path);
        assert.equal(answer.statusCode, 200);
        const name = String(answer.headers['x-auth-user-name']);
        assert.equal(Buffer.from(name, 'latin1').toString('utf8'), 'ZoëX-Evil: 1 李');
        assert.equal(answer.headers['x-evil'], undefined);
      });
    }

    test('/auth/request: a guest gets 401 with the login URL in Location (for nginx error_page)', async () => {
      const { app } = ctx();
      const answer = await app.inject({ url: '/auth/request', headers: { accept: HTML } });
      assert.equal(answer.statusCode, 401);
      assert.deepEqual(answer.json(), { message: 'Unauthenticated.' });
      assert.equal(answer.headers['www-authenticate'], 'Bearer realm="Gatehouse"');
      assert.equal(answer.headers['cache-control'], 'no-store');
      assert.equal(answer.headers.location, 'http://gatehouse.test/login');
    });

    test('/auth/forward: a page visit by a guest is sent to the login; a script gets 401', async () => {
      const { app } = ctx();
      const forwarded = {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'app.example.com',
        'x-forwarded-uri': '/reports?year=2026',
      };
      const page = await app.inject({ url: '/auth/forward', headers: { accept: HTML, ...forwarded } });
      assert.equal(page.statusCode, 302);
      // Without TRUST_PROXY the X-Forwarded-* headers are anyone's words: no redirect parameter.
      assert.equal(page.headers.location, 'http://gatehouse.test/login');
      assert.equal(page.headers['cache-control'], 'no-store');
      for (const headers of [
        { accept: 'application/json' },
        { accept: '*/*' },
        {},
        { accept: HTML, 'x-requested-with': 'XMLHttpRequest' },
      ]) {
        const script = await app.inject({ url: '/auth/forward', headers: { ...headers, ...forwarded } });
        assert.equal(script.statusCode, 401, JSON.stringify(headers));
        assert.deepEqual(script.json(), { message: 'Unauthenticated.' });
        assert.equal(script.headers.location, undefined);
      }
    });
  },
);

await describeApp(
  'forward auth behind a trusted proxy (TRUST_PROXY)',
  (ctx) => {
    const forwarded = {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'app.example.com',
      'x-forwarded-uri': '/reports?year=2026&q=a%20b',
    };
    const expected = `http://gatehouse.test/login?redirect=${encodeURIComponent('https://app.example.com/reports?year=2026&q=a%20b')}`;

    test('/auth/forward: 302 to the login with the original URL as redirect', async () => {
      const page = await ctx().app.inject({ url: '/auth/forward', headers: { accept: HTML, ...forwarded } });
      assert.equal(page.statusCode, 302);
      assert.equal(page.headers.location, expected);
    });

    test('/auth/request: the 401 names the same login URL (nginx passes it on with error_page)', async () => {
      const answer = await ctx().app.inject({ url: '/auth/request', headers: forwarded });
      assert.equal(answer.statusCode, 401);
      assert.equal(answer.headers.location, expected);
    });

    test('headers that make no URL are dropped, not passed on', async () => {
      const { app } = ctx();
      for (const bad of [
        { 'x-forwarded-proto': 'javascript' },
        { 'x-forwarded-host': 'evil.test/@app.example.com' },
        { 'x-forwarded-host': 'user@app.example.com' },
        { 'x-forwarded-uri': '//evil.test/' },
        { 'x-forwarded-uri': '/\\evil.test' },
        { 'x-forwarded-uri': 'https://evil.test/' },
      ]) {
        const page = await app.inject({
          url: '/auth/forward',
          headers: { accept: HTML, ...forwarded, ...bad },
        });
        assert.equal(page.statusCode, 302);
        assert.equal(page.headers.location, 'http://gatehouse.test/login', JSON.stringify(bad));
      }
    });
  },
  { env: { TRUST_PROXY: '1' } },
);

test('TRUST_PROXY as addresses: only those peers are believed', async () => {
  const headers = {
    accept: HTML,
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'app.example.com',
    'x-forwarded-uri': '/',
  };
  const listed = await createTestApp('sqlite', { env: { TRUST_PROXY: '127.0.0.0/8,::1' } });
  const other = await createTestApp('sqlite', { env: { TRUST_PROXY: '10.0.0.1' } });
  try {
    // app.inject() connects from 127.0.0.1.
    const believed = await listed.app.inject({ url: '/auth/forward', headers });
    assert.equal(
      believed.headers.location,
      `http://gatehouse.test/login?redirect=${encodeURIComponent('https://app.example.com/')}`,
    );
    const ignored = await other.app.inject({ url: '/auth/forward', headers });
    assert.equal(ignored.headers.location, 'http://gatehouse.test/login');
  } finally {
    await listed.close();
    await other.close();
  }
});
