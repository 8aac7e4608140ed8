import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrfTokenFor } from '../../src/auth/sessions/csrf.ts';
import { createSession, newSessionId, sessionKey } from '../../src/auth/sessions/sessions.ts';
import { countRows, describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

/** Pages a guest is bounced from to a login, and the guest pages themselves. */
const GUEST_GETS = [
  `/dashboard?x=${'a'.repeat(8192)}`,
  '/dashboard?tab=1',
  '/profile',
  '/user/api-tokens',
  '/admin',
  '/admin/users?page=2',
  '/login',
  '/login?redirect=http://gatehouse.test/dashboard',
  '/admin/login',
  '/register',
  '/forgot-password',
  '/two-factor-challenge',
  '/sanctum/csrf-cookie',
  '/reset-password/some-token?email=a%40example.com',
  '/no-such-page',
];

async function sessionRowExists(t: TestApp, plainId: string): Promise<boolean> {
  const row = await t.db
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', sessionKey(plainId))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * docs/security.md "Guests cost nothing": a request without a session cookie stores nothing on the
 * server unless it submits a form; the intended URL is remembered (in a signed cookie) only up to
 * 2,048 characters; a session id the server did not issue is never adopted.
 */
await describeEachDialect('Guests cost nothing', (ctx) => {
  test('guests cost nothing: 1,000 cookie-less GETs of protected pages and the login page store no row', async () => {
    const t = ctx();
    const before = await countRows(t.db, 'sessions');
    const statuses = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const url = GUEST_GETS[i % GUEST_GETS.length]!;
      const answer = await t.app.inject({ url });
      assert.ok(answer.statusCode < 500, `${url.slice(0, 40)}: ${answer.statusCode}`);
      statuses.add(answer.statusCode);
    }
    assert.ok(statuses.has(302) && statuses.has(200), 'bounced to the login and shown pages alike');
    assert.equal(await countRows(t.db, 'sessions'), before, 'no session row stored');
    // The same with a cookie the server never issued.
    for (let i = 0; i < 100; i++) {
      const url = GUEST_GETS[i % GUEST_GETS.length]!;
      await t.app.inject({ url, cookies: { gatehouse_session: newSessionId() } });
    }
    assert.equal(await countRows(t.db, 'sessions'), before, 'nor with a made-up session cookie');
  });

  test('guests cost nothing: the login form of a fresh browser posts, and the login lands on the intended page', async () => {
    const t = ctx();
    const user = await t.createUser();
    const before = await countRows(t.db, 'sessions');
    const browser = new Browser(t.app);
    const bounced = await browser.get('/dashboard');
    assert.equal(bounced.statusCode, 302);
    assert.equal(bounced.headers.location, '/login');
    await browser.get('/login');
    const guestId = browser.cookies.get('gatehouse_session');
    assert.ok(guestId && browser.csrf, 'a guest id and its CSRF token, without a row');
    assert.equal(await countRows(t.db, 'sessions'), before);
    const login = await browser.post('/login', { email: user.email, password: user.password });
    assert.equal(login.statusCode, 302);
    assert.equal(login.headers.location, '/dashboard');
    const signedIn = browser.cookies.get('gatehouse_session');
    assert.ok(signedIn && signedIn !== guestId, 'the id is rotated at login');
    assert.equal(await sessionRowExists(t, guestId), false);
    assert.equal(await countRows(t.db, 'sessions'), before + 1, 'the login stores one row');
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
    assert.equal(browser.cookies.get('gatehouse_session_intended'), undefined, 'used once, then cleared');
  });

  test('guests cost nothing: the intended URL is remembered up to 2,048 characters, no longer', async () => {
    const t = ctx();
    const user = await t.createUser();
    const fits = `/profile?x=${'b'.repeat(2048 - '/profile?x='.length)}`;
    const short = new Browser(t.app);
    await short.get(fits);
    await short.get('/login');
    const kept = await short.post('/login', { email: user.email, password: user.password });
    assert.equal(kept.headers.location, fits);

    const long = new Browser(t.app);
    const bounced = await long.get(`${fits}b`);
    assert.equal(bounced.statusCode, 302);
    assert.equal(long.cookies.get('gatehouse_session_intended'), undefined, 'not remembered');
    await long.get('/login');
    const fallback = await long.post('/login', { email: user.email, password: user.password });
    assert.equal(fallback.headers.location, '/dashboard', 'LOGIN_REDIRECT instead');
  });

  test('guests cost nothing: a forged intended-URL cookie is ignored', async () => {
    const t = ctx();
    const user = await t.createUser();
    const browser = new Browser(t.app);
    await browser.get('/profile');
    const signed = browser.cookies.get('gatehouse_session_intended')!;
    const [, signature] = signed.split('.');
    browser.cookies.set(
      'gatehouse_session_intended',
      `${Buffer.from('/user/api-tokens').toString('base64url')}.${signature}`,
    );
    await browser.get('/login');
    const login = await browser.post('/login', { email: user.email, password: user.password });
    assert.equal(login.headers.location, '/dashboard');
  });

  test('session ids not issued by the server are never adopted: a new one is set', async () => {
    const t = ctx();
    const user = await t.createUser();
    const forged = newSessionId();
    const browser = new Browser(t.app);
    browser.cookies.set('gatehouse_session', forged);
    const page = await browser.get('/login');
    const issued = browser.cookies.get('gatehouse_session');
    assert.ok(
      page.cookies.some((c) => c.name === 'gatehouse_session'),
      'a new id is set',
    );
    assert.ok(issued && issued !== forged);

    // Whoever planted the id knows its CSRF token: it is worth nothing.
    const planted = new Browser(t.app);
    planted.cookies.set('gatehouse_session', forged);
    planted.csrf = csrfTokenFor(t.config.appKey, 'web', forged);
    const refused = await planted.post('/login', { email: user.email, password: 'wrong password' });
    assert.equal(refused.statusCode, 419);

    // A form posted by the browser with its new id stores its data under that id, never the forged one.
    const failed = await browser.post('/login', { email: user.email, password: 'wrong password' });
    assert.equal(failed.statusCode, 422);
    assert.equal(await sessionRowExists(t, forged), false, 'the forged id holds no row');
    const ok = await browser.post('/login', { email: user.email, password: user.password });
    assert.equal(ok.statusCode, 302);
    assert.notEqual(browser.cookies.get('gatehouse_session'), forged);
    assert.equal(await sessionRowExists(t, forged), false);
  });

  test('session ids not issued by the server: one a live row holds (from before tagged ids) still works', async () => {
    const t = ctx();
    const user = await t.createUser();
    const legacy = newSessionId();
    const now = t.services.clock.now();
    const session = { guard: 'web', plainId: legacy, userId: user.id, data: {}, ip: null, userAgent: null };
    await createSession(t.db, session, now);
    const browser = new Browser(t.app);
    browser.cookies.set('gatehouse_session', legacy);
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
    assert.equal(browser.cookies.get('gatehouse_session'), legacy, 'kept, not replaced');
    browser.csrf = csrfTokenFor(t.config.appKey, 'web', legacy);
    const logout = await browser.post('/logout');
    assert.equal(logout.statusCode, 302, 'its CSRF token is checked once the row is found');
    assert.equal(await sessionRowExists(t, legacy), false);
  });

  test('session ids not issued by the server: an SPA asking GET /sanctum/csrf-cookie first keeps its older signed-in session', async () => {
    const t = ctx();
    const user = await t.createUser();
    const legacy = newSessionId();
    const session = { guard: 'web', plainId: legacy, userId: user.id, data: {}, ip: null, userAgent: null };
    await createSession(t.db, session, t.services.clock.now());
    const browser = new Browser(t.app);
    browser.cookies.set('gatehouse_session', legacy);
    assert.equal((await browser.get('/sanctum/csrf-cookie')).statusCode, 204);
    assert.equal(browser.cookies.get('gatehouse_session'), legacy, 'kept, not replaced');
    assert.equal(
      decodeURIComponent(browser.cookies.get('XSRF-TOKEN') ?? ''),
      csrfTokenFor(t.config.appKey, 'web', legacy),
    );
    assert.equal((await browser.get('/dashboard')).statusCode, 200, 'still signed in');
  });
});
