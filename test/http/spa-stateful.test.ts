import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countRows, describeApp } from '../helpers/app.ts';
import { SpaClient } from '../helpers/spa-client.ts';

const SPA = 'http://spa.test:5173';
const env = { SANCTUM_STATEFUL_DOMAINS: 'spa.test:5173,*.example.com,plain.test' };

await describeApp(
  'SPA on a stateful domain: cookie sessions for /api',
  (ctx) => {
    test('GET /sanctum/csrf-cookie: 204, session cookie + readable XSRF-TOKEN bound to it', async () => {
      const { app, db } = ctx();
      const sessions = await countRows(db, 'sessions');
      const spa = new SpaClient(app, SPA);
      const first = await spa.csrfCookie();
      assert.equal(first.statusCode, 204);
      assert.equal(first.body, '');
      const session = first.cookies.find((c) => c.name === 'gatehouse_session');
      const xsrf = first.cookies.find((c) => c.name === 'XSRF-TOKEN');
      assert.ok(session?.value && xsrf?.value);
      assert.equal(session.httpOnly, true);
      assert.equal(xsrf.httpOnly, undefined, 'JavaScript must be able to read XSRF-TOKEN');
      assert.equal(xsrf.sameSite, 'Lax');
      assert.equal(xsrf.path, '/');
      assert.equal(await countRows(db, 'sessions'), sessions, 'a guest costs no session row');

      // Asked again with the cookie: the same session, the same token, sent again.
      const again = await spa.csrfCookie();
      assert.equal(again.statusCode, 204);
      assert.equal(
        again.cookies.find((c) => c.name === 'gatehouse_session'),
        undefined,
      );
      assert.equal(again.cookies.find((c) => c.name === 'XSRF-TOKEN')?.value, xsrf.value);

      // Bound to the session: it does not work with another browser's session cookie.
      const other = new SpaClient(app, SPA);
      await other.csrfCookie();
      const { email, password } = await ctx().createUser();
      const stolen = await other.json('POST', '/login', { email, password }, { xsrf: xsrf.value });
      assert.equal(stolen.statusCode, 419);
    });

    test('csrf-cookie → JSON login → /api/user → POST /api/posts → logout', async () => {
      const { app, createUser, db } = ctx();
      const user = await createUser();
      const spa = new SpaClient(app, SPA);
      await spa.csrfCookie();
      const guestXsrf = spa.xsrfToken;
      const login = await spa.json('POST', '/login', { email: user.email, password: user.password });
      assert.equal(login.statusCode, 204);
      assert.notEqual(spa.xsrfToken, guestXsrf, 'a new session id comes with a new XSRF token');

      const me = await spa.json('GET', '/api/user');
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().email, user.email);

      const posts = await countRows(db, 'posts');
      const created = await spa.json('POST', '/api/posts', { title: 'From the SPA', body: 'Hello' });
      assert.equal(created.statusCode, 201);
      assert.equal(created.json().data.user_id, user.id);
      assert.equal(await countRows(db, 'posts'), posts + 1);
      const listed = await spa.json('GET', '/api/posts');
      assert.equal(listed.json().data[0].title, 'From the SPA');

      // A session has no token: "revoke the current token" is a no-op.
      const tokens = await countRows(db, 'personal_access_tokens');
      assert.equal((await spa.json('DELETE', '/api/tokens/current')).statusCode, 204);
      assert.equal(await countRows(db, 'personal_access_tokens'), tokens);
      assert.equal((await spa.json('GET', '/api/user')).statusCode, 200);

      const session = spa.cookies.get('gatehouse_session')!;
      const logout = await spa.json('POST', '/logout');
      assert.equal(logout.statusCode, 204);
      assert.equal((await spa.json('GET', '/api/user')).statusCode, 401);
      const replay = await app.inject({
        url: '/api/user',
        headers: { origin: SPA, cookie: `gatehouse_session=${session}` },
      });
      assert.equal(replay.statusCode, 401, 'the old cookie stopped working on the server');
    });

    test('a session cookie from an unlisted origin, or from no browser at all, is not used', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const spa = new SpaClient(app, SPA);
      await spa.login(user.email, user.password);
      const cookie = spa.cookieHeader();
      const ask = (headers: Record<string, string>) =>
        app.inject({ url: '/api/user', headers: { cookie, accept: 'application/json', ...headers } });

      assert.equal((await ask({ origin: SPA })).statusCode, 200);
      const unlisted = await ask({ origin: 'http://evil.test' });
      assert.equal(unlisted.statusCode, 401);
      assert.deepEqual(unlisted.json(), { message: 'Unauthenticated.' });
      assert.equal(unlisted.headers['www-authenticate'], 'Bearer realm="Gatehouse"');
      assert.equal((await ask({})).statusCode, 401, 'no Origin, no Referer: not a browser front end');
      assert.equal((await ask({ origin: 'null', referer: `${SPA}/` })).statusCode, 401);
    });

    test('Referer stands in when there is no Origin; Origin wins when both are sent', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const spa = new SpaClient(app, SPA);
      await spa.login(user.email, user.password);
      const cookie = spa.cookieHeader();
      const ask = (headers: Record<string, string>) =>
        app.inject({ url: '/api/user', headers: { cookie, ...headers } });
      assert.equal((await ask({ referer: `${SPA}/settings?tab=1` })).statusCode, 200);
      assert.equal((await ask({ referer: 'http://evil.test/spa.test:5173/' })).statusCode, 401);
      assert.equal((await ask({ origin: 'http://evil.test', referer: `${SPA}/` })).statusCode, 401);
    });

    test('wildcards and ports: an entry without a port means the default port only', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const spa = new SpaClient(app, SPA);
      await spa.login(user.email, user.password);
      const cookie = spa.cookieHeader();
      const status = async (origin: string) =>
        (await app.inject({ url: '/api/user', headers: { cookie, origin } })).statusCode;
      assert.equal(await status('https://app.example.com'), 200);
      assert.equal(await status('https://a.b.example.com'), 200);
      assert.equal(await status('https://example.com'), 401);
      assert.equal(await status('https://notexample.com'), 401);
      assert.equal(await status('http://spa.test:5174'), 401);
      assert.equal(await status('http://spa.test'), 401);
      assert.equal(await status('http://plain.test'), 200);
      assert.equal(await status('https://plain.test'), 200);
      assert.equal(await status('http://plain.test:8080'), 401);
    });

    test('missing or wrong XSRF header on a stateful state change: 419 and nothing changes', async () => {
      const { app, createUser, db, issueToken } = ctx();
      const user = await createUser();
      await issueToken(user.email, user.password);
      const spa = new SpaClient(app, SPA);
      await spa.login(user.email, user.password);
      const posts = await countRows(db, 'posts');
      const tokens = await countRows(db, 'personal_access_tokens');
      const payload = { title: 'x', body: 'y' };

      for (const xsrf of [false, 'wrong', `${spa.xsrfToken}x`] as const) {
        const refused = await spa.json('POST', '/api/posts', payload, { xsrf });
        assert.equal(refused.statusCode, 419, String(xsrf));
        assert.deepEqual(refused.json(), { message: 'CSRF token mismatch.' });
      }
      assert.equal((await spa.json('DELETE', '/api/tokens', undefined, { xsrf: false })).statusCode, 419);
      assert.equal(await countRows(db, 'posts'), posts);
      assert.equal(await countRows(db, 'personal_access_tokens'), tokens);

      // X-CSRF-TOKEN is accepted too (Laravel's meta-tag header).
      const viaCsrfHeader = await spa.json('POST', '/api/posts', payload, {
        xsrf: false,
        headers: { 'x-csrf-token': spa.xsrfToken! },
      });
      assert.equal(viaCsrfHeader.statusCode, 201);
      // Reading is not a state change: no header needed.
      assert.equal((await spa.json('GET', '/api/posts', undefined, { xsrf: false })).statusCode, 200);
    });

    test('a session holds every ability; bearer tokens keep theirs', async () => {
      const { app, createUser, issueToken } = ctx();
      const user = await createUser();
      const readOnly = await issueToken(user.email, user.password, { abilities: ['posts:read'] });
      const payload = JSON.stringify({ title: 't', body: 'b' });
      const bearer = await app.inject({
        method: 'POST',
        url: '/api/posts',
        payload,
        headers: { authorization: `Bearer ${readOnly}`, 'content-type': 'application/json' },
      });
      assert.equal(bearer.statusCode, 403);

      const spa = new SpaClient(app, SPA);
      await spa.login(user.email, user.password);
      assert.equal((await spa.json('POST', '/api/posts', { title: 't', body: 'b' })).statusCode, 201);
      // Session first, like Sanctum: the cookie identity (all abilities) wins over a narrower token.
      const both = await spa.json(
        'POST',
        '/api/posts',
        { title: 't2', body: 'b2' },
        { headers: { authorization: `Bearer ${readOnly}` } },
      );
      assert.equal(both.statusCode, 201);
    });

    test('bearer tokens: no CSRF check without a stateful origin, and they work from one too', async () => {
      const { app, createUser, issueToken } = ctx();
      const user = await createUser();
      const token = await issueToken(user.email, user.password);
      const post = (headers: Record<string, string>) =>
        app.inject({
          method: 'POST',
          url: '/api/posts',
          payload: JSON.stringify({ title: 't', body: 'b' }),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        });
      assert.equal((await post({})).statusCode, 201);
      assert.equal((await post({ origin: 'http://evil.test' })).statusCode, 201);

      const spa = new SpaClient(app, SPA);
      const get = await spa.json('GET', '/api/user', undefined, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(get.statusCode, 200, 'no session cookie at all: the token authenticates');
      // Like Sanctum, a stateful front end's state changes always need the XSRF header.
      assert.equal((await post({ origin: SPA })).statusCode, 419);
      await spa.csrfCookie();
      const withXsrf = await spa.json(
        'POST',
        '/api/posts',
        { title: 't', body: 'b' },
        { headers: { authorization: `Bearer ${token}` } },
      );
      assert.equal(withXsrf.statusCode, 201);
    });

    test('JSON registration from the SPA: 204 and signed in; 419 without XSRF; 422 when taken', async () => {
      const { app, db } = ctx();
      const spa = new SpaClient(app, SPA);
      await spa.csrfCookie();
      const email = `spa-${Date.now()}@example.com`;
      const input = {
        name: 'Spa User',
        email,
        password: 'a-Long-unusual-pass-42',
        password_confirmation: 'a-Long-unusual-pass-42',
      };
      const users = await countRows(db, 'users');
      const noXsrf = await spa.json('POST', '/register', input, { xsrf: false });
      assert.equal(noXsrf.statusCode, 419);
      assert.equal(await countRows(db, 'users'), users);

      const registered = await spa.json('POST', '/register', input);
      assert.equal(registered.statusCode, 204, registered.body);
      assert.equal(await countRows(db, 'users'), users + 1);
      const me = await spa.json('GET', '/api/user');
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().email, email);

      const again = new SpaClient(app, SPA);
      await again.csrfCookie();
      const taken = await again.json('POST', '/register', input);
      assert.equal(taken.statusCode, 422);
      assert.deepEqual(taken.json().errors.email, ['The email has already been taken.']);
      assert.equal(await countRows(db, 'users'), users + 1);
    });

    test('JSON login from the SPA: documented errors, 419 without the XSRF header', async () => {
      const { app, createUser, db } = ctx();
      const user = await createUser();
      const spa = new SpaClient(app, SPA);
      await spa.csrfCookie();
      const wrong = await spa.json('POST', '/login', { email: user.email, password: 'wrong-password' });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json(), {
        message: 'These credentials do not match our records.',
        errors: { email: ['These credentials do not match our records.'] },
      });
      const invalid = await spa.json('POST', '/login', { email: 'not-an-email' });
      assert.equal(invalid.statusCode, 422);
      assert.ok(invalid.json().errors.password);
      const sessions = await countRows(db, 'sessions');
      const noXsrf = await spa.json(
        'POST',
        '/login',
        { email: user.email, password: user.password },
        { xsrf: false },
      );
      assert.equal(noXsrf.statusCode, 419);
      assert.deepEqual(noXsrf.json(), { message: 'CSRF token mismatch.' });
      assert.equal(await countRows(db, 'sessions'), sessions);
      assert.equal((await spa.json('GET', '/api/user')).statusCode, 401);
    });
  },
  { env },
);
