import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROTATION_GRACE_MS } from '../../src/auth/remember-me/remember-me.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser, webLogin } from '../helpers/browser-session.ts';

const clock = fakeClock();

async function adminLogin(t: TestApp, user: { email: string; password: string }, form = {}) {
  const browser = new Browser(t.app);
  await browser.get('/admin/login');
  const login = await browser.post('/admin/login', { email: user.email, password: user.password, ...form });
  assert.equal(login.statusCode, 302, login.body);
  return browser;
}

const rowsOf = (t: TestApp, table: 'sessions' | 'remember_tokens', userId: number) =>
  t.db.selectFrom(table).select('id').where('user_id', '=', userId).execute();

/**
 * docs/security.md "Remember-me theft": a replaced remember-me cookie used again after the 30-second
 * grace ends every session of the user (every guard's: the thief's too) and every remember-me token.
 * "The admin guard has no remember-me": the panel login ignores `remember`.
 */
await describeEachDialect(
  'remember-me theft and the admin guard without remember-me',
  (ctx) => {
    test('remember-me theft: a replay after the grace ends every session of the user, the thief’s too, and every token', async () => {
      const t = ctx();
      const user = await t.createUser({ panelAccess: true });
      const owner = await webLogin(t.app, user, { remember: true });
      const stolen = owner.cookies.get('gatehouse_remember')!;
      const otherDevice = await webLogin(t.app, user, { remember: true });
      const panel = await adminLogin(t, user);

      // The thief uses the copied cookie first: it rotates, and the thief has a session of its own.
      const thief = new Browser(t.app);
      thief.cookies.set('gatehouse_remember', stolen);
      assert.equal((await thief.get('/dashboard')).statusCode, 200, 'the thief got in');
      assert.ok(thief.cookies.get('gatehouse_session'));
      assert.equal((await rowsOf(t, 'sessions', user.id)).length, 4);

      // Later the owner's browser, its session gone, presents the cookie that has been replaced.
      clock.advance(ROTATION_GRACE_MS + 1000);
      owner.cookies.delete('gatehouse_session');
      const replay = await owner.get('/dashboard');
      assert.equal(replay.statusCode, 302);
      assert.equal(replay.headers.location, '/login');

      assert.equal((await rowsOf(t, 'sessions', user.id)).length, 0, 'every session row of the user is gone');
      assert.equal((await rowsOf(t, 'remember_tokens', user.id)).length, 0, 'every remember token is gone');
      // The thief comes back with its session cookie and its rotated remember-me cookie: both are dead.
      assert.equal((await thief.get('/dashboard')).statusCode, 302, 'the thief’s open session died');
      otherDevice.cookies.delete('gatehouse_remember');
      assert.equal((await otherDevice.get('/dashboard')).statusCode, 302, 'the other device is signed out');
      assert.equal((await panel.get('/admin')).statusCode, 302, 'the panel session ended too');

      const audit = await t.db
        .selectFrom('audit_log')
        .selectAll()
        .where('event', '=', 'remember.theft_suspected')
        .where('subject_id', '=', user.id)
        .execute();
      assert.equal(audit.length, 1, 'audited as before');
      assert.deepEqual(JSON.parse(String(audit[0]!.details)), {
        guard: 'web',
        sessions_ended: 4,
        remember_tokens_revoked: 2,
      });

      // The owner signs in again with the password.
      assert.equal((await webLogin(t.app, user)).cookies.has('gatehouse_session'), true);
    });

    test('remember-me theft: within the grace the previous cookie is refused quietly, nothing ends', async () => {
      const t = ctx();
      const user = await t.createUser();
      const owner = await webLogin(t.app, user, { remember: true });
      const previous = owner.cookies.get('gatehouse_remember')!;
      owner.cookies.delete('gatehouse_session');
      assert.equal((await owner.get('/dashboard')).statusCode, 200, 'rotated');
      const late = await t.app.inject({ url: '/dashboard', cookies: { gatehouse_remember: previous } });
      assert.equal(late.statusCode, 302);
      assert.equal((await owner.get('/dashboard')).statusCode, 200, 'the owner stays signed in');
      assert.equal((await rowsOf(t, 'remember_tokens', user.id)).length, 1);
    });

    test('the admin guard has no remember-me: no box on /admin/login, `remember` ignored, no cookie, no token', async () => {
      const t = ctx();
      const admin = await t.createUser({ panelAccess: true });
      const page = await t.app.inject({ url: '/admin/login' });
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, /name="remember"/, 'the panel offers no remember-me box');
      assert.match(
        (await t.app.inject({ url: '/login' })).body,
        /name="remember"/,
        'the web login still does',
      );

      const panel = await adminLogin(t, admin, { remember: '1' });
      assert.ok(![...panel.cookies.keys()].some((name) => name.includes('remember')), 'no remember cookie');
      const tokens = await t.db
        .selectFrom('remember_tokens')
        .select('id')
        .where('user_id', '=', admin.id)
        .execute();
      assert.equal(tokens.length, 0, 'no remember token stored');
      panel.cookies.delete('gatehouse_admin_session');
      const back = await panel.get('/admin');
      assert.equal(back.statusCode, 302, 'without its session the panel asks for the password again');
      assert.equal(back.headers.location, '/admin/login');
    });

    test('the admin guard has no remember-me: a gatehouse_admin_remember cookie is not read', async () => {
      const t = ctx();
      const admin = await t.createUser({ panelAccess: true });
      const web = await webLogin(t.app, admin, { remember: true });
      // Even a valid token value under the old panel cookie name opens nothing.
      const response = await t.app.inject({
        url: '/admin',
        cookies: { gatehouse_admin_remember: web.cookies.get('gatehouse_remember')! },
      });
      assert.equal(response.statusCode, 302);
      assert.equal(response.headers.location, '/admin/login');
    });
  },
  { overrides: { clock } },
);
