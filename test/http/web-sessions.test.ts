import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROTATION_GRACE_MS } from '../../src/auth/remember-me/remember-me.ts';
import { createSession, newSessionId, sessionKey } from '../../src/auth/sessions/sessions.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { countRows, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const MINUTE = 60_000;
const clock = fakeClock();
const env = { SESSION_LIFETIME: '120', SESSION_ABSOLUTE_LIFETIME: '300', REMEMBER_LIFETIME: '1000' };

async function loggedIn(t: TestApp, remember = false) {
  const user = await t.createUser();
  const browser = new Browser(t.app);
  await browser.get('/login');
  const login = await browser.post('/login', {
    email: user.email,
    password: user.password,
    ...(remember ? { remember: '1' } : {}),
  });
  assert.equal(login.statusCode, 302);
  // A page after login carries the CSRF token of the new session id.
  assert.equal((await browser.get('/dashboard')).statusCode, 200);
  return { user, browser };
}

/** A request carrying only the given cookies, like a second browser that stole them. */
async function dashboardWith(t: TestApp, cookies: Record<string, string>) {
  return t.app.inject({ url: '/dashboard', cookies });
}

async function rememberTokensOf(t: TestApp, userId: number) {
  return t.db.selectFrom('remember_tokens').selectAll().where('user_id', '=', userId).execute();
}

await describeApp(
  'web sessions and remember-me',
  (ctx) => {
    test('login issues a new id: the pre-login cookie and its CSRF token stop working', async () => {
      const t = ctx();
      const user = await t.createUser();
      const browser = new Browser(t.app);
      await browser.get('/dashboard'); // remembers the intended URL (in a cookie: no row, docs/security.md)
      await browser.get('/login');
      const guestId = browser.cookies.get('gatehouse_session')!;
      const guestToken = browser.csrf!;
      const guestRow = await t.db
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', sessionKey(guestId))
        .executeTakeFirst();
      assert.equal(guestRow, undefined, 'a guest holds an id and a CSRF token, but no row');

      await browser.post('/login', { email: user.email, password: user.password });
      const userId = browser.cookies.get('gatehouse_session')!;
      assert.notEqual(userId, guestId);
      assert.match(userId, /^[A-Za-z0-9_-]{43}$/, '256-bit id');
      const stored = await t.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute();
      assert.equal(stored.length, 1);
      assert.equal(stored[0]!.id, sessionKey(userId), 'only the SHA-256 of the id is stored');
      assert.notEqual(stored[0]!.id, userId);
      const gone = await t.db
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', sessionKey(guestId))
        .execute();
      assert.equal(gone.length, 0, 'the pre-login row is destroyed');

      const old = await dashboardWith(t, { gatehouse_session: guestId });
      assert.equal(old.statusCode, 302);
      const staleToken = await browser.post('/logout', { _token: guestToken });
      assert.equal(staleToken.statusCode, 419, "the pre-login CSRF token is not the session's any more");
      assert.equal((await browser.get('/dashboard')).statusCode, 200);
    });

    test('an id planted before login (fixation) is not the one that gets authenticated', async () => {
      const t = ctx();
      const user = await t.createUser();
      const planted = newSessionId();
      const browser = new Browser(t.app);
      browser.cookies.set('gatehouse_session', planted);
      await browser.get('/login');
      await browser.post('/login', { email: user.email, password: user.password });
      assert.notEqual(browser.cookies.get('gatehouse_session'), planted);
      assert.equal((await dashboardWith(t, { gatehouse_session: planted })).statusCode, 302);
    });

    test('logout: POST only, session destroyed server-side, remember token revoked, audited, 302 /', async () => {
      const t = ctx();
      const { user, browser } = await loggedIn(t, true);
      const sessionId = browser.cookies.get('gatehouse_session')!;
      const remember = browser.cookies.get('gatehouse_remember')!;
      assert.equal((await rememberTokensOf(t, user.id)).length, 1);

      const get = await t.app.inject({ url: '/logout' });
      assert.equal(get.statusCode, 405, 'GET /logout does nothing');
      assert.equal(get.headers.allow, 'POST, OPTIONS');
      const logout = await browser.post('/logout');
      assert.equal(logout.statusCode, 302);
      assert.equal(logout.headers.location, '/');
      const cleared = logout.cookies.find((c) => c.name === 'gatehouse_remember');
      assert.ok(cleared && cleared.value === '', 'the remember cookie is cleared');
      assert.equal(browser.cookies.get('gatehouse_remember'), undefined);
      assert.notEqual(browser.cookies.get('gatehouse_session'), sessionId);

      const rows = await t.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
      assert.equal(rows.length, 0);
      assert.equal((await rememberTokensOf(t, user.id)).length, 0);
      const old = await dashboardWith(t, { gatehouse_session: sessionId });
      assert.equal(old.statusCode, 302, 'the old session cookie no longer authenticates');
      const oldRemember = await dashboardWith(t, { gatehouse_remember: remember });
      assert.equal(oldRemember.statusCode, 302, 'nor does the old remember cookie');
      const audit = await t.db
        .selectFrom('audit_log')
        .select(['actor_id', 'details'])
        .where('event', '=', 'logout')
        .where('subject_id', '=', user.id)
        .execute();
      assert.equal(audit.length, 1);

      const home = await browser.get('/');
      assert.match(home.body, /You have been logged out\./);
      assert.match(home.body, /href="\/login"/);
    });

    test('remember-me restores a session after the session cookie is gone, rotating the cookie', async () => {
      const t = ctx();
      const { user, browser } = await loggedIn(t, true);
      const first = browser.cookies.get('gatehouse_remember')!;
      const cookie = (await browser.get('/dashboard')).cookies;
      assert.equal(cookie.length, 0, 'nothing rotates while the session lives');
      const [before] = await rememberTokensOf(t, user.id);
      assert.ok(!first.includes(before!.validator_hash), 'only a hash is stored');

      const sessionBefore = browser.cookies.get('gatehouse_session');
      browser.cookies.delete('gatehouse_session');
      const restored = await browser.get('/dashboard');
      assert.equal(restored.statusCode, 200);
      assert.match(restored.body, new RegExp(user.name));
      const second = browser.cookies.get('gatehouse_remember')!;
      assert.notEqual(second, first, 'rotated on use');
      assert.equal(second.split('.')[0], first.split('.')[0], 'same selector, new validator');
      assert.ok(browser.cookies.get('gatehouse_session'));
      assert.notEqual(browser.cookies.get('gatehouse_session'), sessionBefore, 'a fresh session id');
      const [after] = await rememberTokensOf(t, user.id);
      assert.notEqual(after!.validator_hash, before!.validator_hash);
      const setCookie = restored.cookies.find((c) => c.name === 'gatehouse_remember')!;
      assert.equal(setCookie.maxAge, 1000 * 60, 'lives REMEMBER_LIFETIME minutes');
    });

    test('a replayed old remember cookie revokes every remember token of that user', async () => {
      const t = ctx();
      const { user, browser } = await loggedIn(t, true);
      const other = new Browser(t.app);
      await other.get('/login');
      await other.post('/login', { email: user.email, password: user.password, remember: '1' });
      assert.equal((await rememberTokensOf(t, user.id)).length, 2, 'two remembered browsers');

      const stolen = browser.cookies.get('gatehouse_remember')!;
      browser.cookies.delete('gatehouse_session');
      assert.equal((await browser.get('/dashboard')).statusCode, 200, 'the owner uses it first');
      const current = browser.cookies.get('gatehouse_remember')!;

      clock.advance(ROTATION_GRACE_MS + 1000);
      const replay = await dashboardWith(t, { gatehouse_remember: stolen });
      assert.equal(replay.statusCode, 302);
      assert.equal(replay.headers.location, '/login');
      assert.equal(
        (await rememberTokensOf(t, user.id)).length,
        0,
        'all of the user’s remember tokens revoked',
      );
      const theft = await t.db
        .selectFrom('audit_log')
        .select('id')
        .where('event', '=', 'remember.theft_suspected')
        .where('subject_id', '=', user.id)
        .execute();
      assert.equal(theft.length, 1);
      assert.equal((await dashboardWith(t, { gatehouse_remember: current })).statusCode, 302);
    });

    test('a browser coming back with several requests at once is not mistaken for a thief', async () => {
      const t = ctx();
      const { user, browser } = await loggedIn(t, true);
      const remember = browser.cookies.get('gatehouse_remember')!;
      const responses = await Promise.all(
        ['/dashboard', '/dashboard?tab=2', '/dashboard?tab=3', '/dashboard?tab=4'].map((url) =>
          t.app.inject({ url, cookies: { gatehouse_remember: remember } }),
        ),
      );
      assert.deepEqual(
        responses.map((r) => r.statusCode).sort(),
        [200, 302, 302, 302],
        'exactly one request wins; the others are refused without an alarm',
      );
      const rotated = responses.flatMap((r) => r.cookies).filter((c) => c.name === 'gatehouse_remember');
      assert.equal(rotated.length, 1, 'exactly one response rotates the cookie; the others leave it alone');
      assert.equal((await rememberTokensOf(t, user.id)).length, 1, 'nothing was revoked');
      assert.equal((await dashboardWith(t, { gatehouse_remember: rotated[0]!.value })).statusCode, 200);

      clock.advance(ROTATION_GRACE_MS + 1000);
      assert.equal(
        (await dashboardWith(t, { gatehouse_remember: remember })).statusCode,
        302,
        'after the grace the old value is a replay',
      );
      assert.equal((await rememberTokensOf(t, user.id)).length, 0);
    });

    test('remember cookies expire after REMEMBER_LIFETIME; a disabled user is not restored', async () => {
      const t = ctx();
      const { user, browser } = await loggedIn(t, true);
      const remember = browser.cookies.get('gatehouse_remember')!;
      clock.advance(1001 * MINUTE);
      assert.equal((await dashboardWith(t, { gatehouse_remember: remember })).statusCode, 302);
      assert.equal((await rememberTokensOf(t, user.id)).length, 0, 'the expired token is deleted on sight');

      const second = await loggedIn(t, true);
      await t.db
        .updateTable('users')
        .set({ disabled_at: clock.now() })
        .where('id', '=', second.user.id)
        .execute();
      const refused = await dashboardWith(t, {
        gatehouse_remember: second.browser.cookies.get('gatehouse_remember')!,
      });
      assert.equal(refused.statusCode, 302);
      assert.equal((await rememberTokensOf(t, second.user.id)).length, 0);
      assert.equal((await second.browser.get('/dashboard')).statusCode, 302, 'its live session stops too');
    });

    test('idle lifetime (SESSION_LIFETIME) and absolute lifetime end a session', async () => {
      const t = ctx();
      const { browser } = await loggedIn(t);
      clock.advance(100 * MINUTE);
      assert.equal((await browser.get('/dashboard')).statusCode, 200, 'activity within the idle window');
      clock.advance(100 * MINUTE);
      assert.equal(
        (await browser.get('/dashboard')).statusCode,
        200,
        'the last visit renewed the idle window',
      );
      clock.advance(121 * MINUTE);
      assert.equal(
        (await browser.get('/dashboard')).statusCode,
        302,
        'idle for longer than SESSION_LIFETIME',
      );

      const active = await loggedIn(t);
      for (let minutes = 100; minutes < 300; minutes += 100) {
        clock.advance(100 * MINUTE);
        assert.equal((await active.browser.get('/dashboard')).statusCode, 200, `${minutes} min`);
      }
      clock.advance(100 * MINUTE);
      assert.equal((await active.browser.get('/dashboard')).statusCode, 302, 'past the absolute lifetime');
    });

    test('guest session ids: concurrent first writes and another guard’s id never give a 500', async () => {
      const t = ctx();
      const shared = newSessionId();
      const responses = await Promise.all(
        ['/dashboard', '/profile', '/dashboard?x=1', '/profile?y=2'].map((url) =>
          t.app.inject({ url, cookies: { gatehouse_session: shared } }),
        ),
      );
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        [302, 302, 302, 302],
      );

      const admin = await t.createUser({ panelAccess: true });
      const adminId = newSessionId();
      await createSession(
        t.db,
        {
          guard: 'admin',
          plainId: adminId,
          userId: admin.id,
          data: { marker: 'admin' },
          ip: null,
          userAgent: null,
        },
        clock.now(),
      );
      const crossed = await t.app.inject({ url: '/dashboard', cookies: { gatehouse_session: adminId } });
      assert.equal(crossed.statusCode, 302, 'an admin session id does not open the web dashboard');
      const fresh = crossed.cookies.find((c) => c.name === 'gatehouse_session');
      assert.ok(fresh && fresh.value !== adminId, 'the guest gets an id of its own');
      const row = await t.db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', sessionKey(adminId))
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(row.data), { marker: 'admin' }, 'the admin row is untouched');
    });

    test('anonymous page views write nothing', async () => {
      const t = ctx();
      const before = await countRows(t.db, 'sessions');
      const browser = new Browser(t.app);
      for (const path of ['/', '/login', '/register', '/login?lang=de']) await browser.get(path);
      assert.equal(await countRows(t.db, 'sessions'), before);
    });
  },
  { env, overrides: { clock } },
);
