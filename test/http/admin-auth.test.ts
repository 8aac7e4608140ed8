import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setPanelAccess } from '../../src/admin/user-actions.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/auth/passwords/passwords.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { countRows, createTestApp, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

/** The real argon2id hasher, counting verifications: proves a refused user's password was checked. */
const verifications = { count: 0 };
function countingHasher(): PasswordHasher {
  const inner = createPasswordHasher(2);
  return {
    ...inner,
    verify: async (hash, password) => {
      verifications.count++;
      return inner.verify(hash, password);
    },
    check: async (hash, password) => {
      verifications.count++;
      return inner.check(hash, password);
    },
  };
}

async function adminBrowser(t: TestApp, user: { email: string; password: string }, remember = false) {
  const browser = new Browser(t.app);
  await browser.get('/admin/login');
  const login = await browser.post('/admin/login', {
    email: user.email,
    password: user.password,
    ...(remember ? { remember: '1' } : {}),
  });
  assert.equal(login.statusCode, 302, login.body);
  return browser;
}

const auditEvents = async (t: TestApp, event: string) =>
  t.db.selectFrom('audit_log').selectAll().where('event', '=', event).orderBy('id').execute();

await describeApp(
  'admin guard: login, separation, loss of access',
  (ctx) => {
    test('guests asking for any panel page go to /admin/login and come back there after login', async () => {
      const t = ctx();
      const admin = await t.createUser({ panelAccess: true });
      for (const url of ['/admin', '/admin/users', '/admin/users/1', '/admin/audit?user=x']) {
        const response = await t.app.inject({ url });
        assert.equal(response.statusCode, 302, url);
        assert.equal(response.headers.location, '/admin/login', url);
      }
      const json = await t.app.inject({ url: '/admin', headers: { accept: 'application/json' } });
      assert.equal(json.statusCode, 401);
      assert.deepEqual(json.json(), { message: 'Unauthenticated.' });

      const browser = new Browser(t.app);
      assert.equal((await browser.get('/admin/audit?group=failures')).headers.location, '/admin/login');
      const form = await browser.get('/admin/login');
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /action="\/admin\/login"/);
      const guestCookie = browser.cookies.get('gatehouse_admin_session');
      assert.ok(guestCookie);
      const login = await browser.post('/admin/login', { email: admin.email, password: admin.password });
      assert.equal(login.statusCode, 302);
      assert.equal(login.headers.location, '/admin/audit?group=failures');
      assert.notEqual(browser.cookies.get('gatehouse_admin_session'), guestCookie, 'a new id after login');
      assert.equal(browser.cookies.get('gatehouse_session'), undefined, 'no web session was opened');
      assert.equal((await browser.get('/admin/login')).headers.location, '/admin', 'already signed in');
      const home = await browser.get('/admin');
      assert.equal(home.statusCode, 200);
      assert.match(home.body, /<body class="admin">/);
      assert.equal((await auditEvents(t, 'admin.login.succeeded')).at(-1)?.subject_id, admin.id);
    });

    test('a web session never opens /admin; an admin session never opens /dashboard', async () => {
      const t = ctx();
      const both = await t.createUser({ panelAccess: true });
      const web = new Browser(t.app);
      await web.get('/login');
      assert.equal(
        (await web.post('/login', { email: both.email, password: both.password })).statusCode,
        302,
      );
      assert.equal((await web.get('/dashboard')).statusCode, 200);
      const panel = await web.get('/admin');
      assert.equal(panel.statusCode, 302);
      assert.equal(panel.headers.location, '/admin/login');
      // Forging the cookie name does not help: a web session row belongs to the web guard only.
      const forged = await t.app.inject({
        url: '/admin',
        cookies: { gatehouse_admin_session: web.cookies.get('gatehouse_session')! },
      });
      assert.equal(forged.statusCode, 302);

      const admin = await adminBrowser(t, both);
      assert.equal((await admin.get('/admin')).statusCode, 200);
      const dashboard = await admin.get('/dashboard');
      assert.equal(dashboard.statusCode, 302);
      assert.equal(dashboard.headers.location, '/login');
      const forgedWeb = await t.app.inject({
        url: '/dashboard',
        cookies: { gatehouse_session: admin.cookies.get('gatehouse_admin_session')! },
      });
      assert.equal(forgedWeb.statusCode, 302);

      // Logging out of one leaves the other alone.
      assert.equal((await admin.post('/admin/logout')).headers.location, '/admin/login');
      assert.equal((await admin.get('/admin')).statusCode, 302);
      assert.equal((await web.get('/dashboard')).statusCode, 200);
    });

    test('a user the panel check refuses gets exactly the wrong-password answer, after a full verification, and no session', async () => {
      const t = ctx();
      const plain = await t.createUser({ panelAccess: false });
      const browser = new Browser(t.app);
      await browser.get('/admin/login');
      const sessions = await countRows(t.db, 'sessions');
      const before = verifications.count;
      const refused = await browser.post('/admin/login', { email: plain.email, password: plain.password });
      assert.equal(verifications.count, before + 1, 'the right password was verified before refusing');
      const wrong = await browser.post('/admin/login', { email: plain.email, password: 'wrong password!' });
      assert.equal(refused.statusCode, 422);
      assert.equal(wrong.statusCode, 422);
      assert.equal(refused.body, wrong.body, 'same bytes for "refused by the check" and "wrong password"');
      assert.match(refused.body, /These credentials do not match our records\./);
      assert.deepEqual(
        Object.keys(refused.headers).sort(),
        Object.keys(wrong.headers).sort(),
        'same headers (no cookie set for one only)',
      );
      assert.equal(refused.headers['set-cookie'], undefined);
      assert.equal(await countRows(t.db, 'sessions'), sessions, 'no session row');
      assert.equal((await browser.get('/admin')).statusCode, 302);

      const jsonRefused = await t.app.inject({
        method: 'POST',
        url: '/admin/login',
        headers: {
          accept: 'application/json',
          cookie: browser.cookieHeader(),
          'x-csrf-token': browser.csrf!,
        },
        payload: { email: plain.email, password: plain.password },
      });
      const jsonWrong = await t.app.inject({
        method: 'POST',
        url: '/admin/login',
        headers: {
          accept: 'application/json',
          cookie: browser.cookieHeader(),
          'x-csrf-token': browser.csrf!,
        },
        payload: { email: plain.email, password: 'wrong password!' },
      });
      assert.equal(jsonRefused.statusCode, 422);
      assert.equal(jsonRefused.body, jsonWrong.body);
      const failures = await auditEvents(t, 'admin.login.failed');
      assert.ok(failures.filter((row) => row.subject_id === plain.id).length >= 4);

      // A disabled admin is refused the same way.
      const disabled = await t.createUser({ panelAccess: true });
      await t.db
        .updateTable('users')
        .set({ disabled_at: Date.now() })
        .where('id', '=', disabled.id)
        .execute();
      const gone = await browser.post('/admin/login', { email: disabled.email, password: disabled.password });
      assert.equal(gone.statusCode, 422);
      assert.match(gone.body, /These credentials do not match our records\./);
    });

    test('an admin who loses access gets 403 on the next panel request, and the session ends', async () => {
      const t = ctx();
      const [one, two, three] = [
        await t.createUser({ panelAccess: true }),
        await t.createUser({ panelAccess: true }),
        await t.createUser({ panelAccess: true }),
      ];
      // 1. The flag is withdrawn (by the command line's domain function).
      const first = await adminBrowser(t, one, true);
      assert.equal((await first.get('/admin/users')).statusCode, 200);
      assert.equal(await setPanelAccess(t.db, one.id, false, { now: Date.now() }, 'cli'), 'ok');
      const refused = await first.get('/admin/users');
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /Your access to the administration panel has been withdrawn\./);
      const after = await first.get('/admin/users');
      assert.equal(after.statusCode, 302, 'the refused session was ended');
      assert.equal(after.headers.location, '/admin/login');
      const remembered = await t.db
        .selectFrom('remember_tokens')
        .select('id')
        .where('user_id', '=', one.id)
        .where('guard', '=', 'admin')
        .execute();
      assert.equal(remembered.length, 0, 'withdrawing access forgets admin remember-me tokens');

      // 2. Another admin disables the account in the panel; JSON clients get the 403 as JSON.
      const second = await adminBrowser(t, two);
      const third = await adminBrowser(t, three);
      await third.get(`/admin/users/${two.id}`);
      assert.equal((await third.post(`/admin/users/${two.id}/disable`)).statusCode, 302);
      const json = await second.get('/admin', { accept: 'application/json' });
      assert.equal(json.statusCode, 403);
      assert.deepEqual(json.json(), {
        message: 'Your access to the administration panel has been withdrawn.',
      });
      const action = await second.post(`/admin/users/${three.id}/disable`);
      assert.ok([302, 403, 419].includes(action.statusCode));
      const threeRow = await t.db
        .selectFrom('users')
        .select('disabled_at')
        .where('id', '=', three.id)
        .executeTakeFirst();
      assert.equal(threeRow?.disabled_at, null, 'the refused admin changed nothing');
    });

    test('one count: the admin login shares the per-e-mail+IP count of the web login', async () => {
      const t = ctx();
      const user = await t.createUser({ panelAccess: true });
      const web = new Browser(t.app);
      await web.get('/login');
      for (let i = 0; i < 5; i++)
        await web.post('/login', { email: user.email, password: 'wrong password!' });
      const locked = await web.post('/login', { email: user.email, password: user.password });
      assert.equal(locked.statusCode, 429);

      const admin = new Browser(t.app);
      await admin.get('/admin/login');
      const fine = await admin.post('/admin/login', { email: user.email, password: user.password });
      assert.equal(fine.statusCode, 429, 'five web failures lock the panel login of that e-mail and IP too');

      const other = await t.createUser({ panelAccess: true });
      const attacker = new Browser(t.app);
      await attacker.get('/admin/login');
      for (let i = 0; i < 5; i++) {
        assert.equal(
          (await attacker.post('/admin/login', { email: other.email, password: 'wrong password!' }))
            .statusCode,
          422,
        );
      }
      const sixth = await attacker.post('/admin/login', { email: other.email, password: other.password });
      assert.equal(sixth.statusCode, 429);
      assert.match(sixth.body, /Too many login attempts\. Please try again in \d+ seconds\./);
      assert.ok(Number(sixth.headers['retry-after']) > 0);
      assert.equal((await auditEvents(t, 'admin.login.lockout')).length, 1);
      const webLogin = new Browser(t.app);
      await webLogin.get('/login');
      assert.equal(
        (await webLogin.post('/login', { email: other.email, password: other.password })).statusCode,
        429,
        'panel failures lock the web login of that e-mail and IP too',
      );
    });

    test('admin login form: validation like /login, 419 without the admin CSRF token', async () => {
      const t = ctx();
      const admin = await t.createUser({ panelAccess: true });
      const browser = new Browser(t.app);
      await browser.get('/admin/login');
      const invalid = await browser.post('/admin/login', { email: 'not-an-email', password: '123' });
      assert.equal(invalid.statusCode, 422);
      assert.match(invalid.body, /The email field must be a valid email address\./);
      assert.match(invalid.body, /The password field must be at least 6 characters\./);
      const noToken = await browser.post('/admin/login', {
        _token: '',
        email: admin.email,
        password: admin.password,
      });
      assert.equal(noToken.statusCode, 419);

      // A valid token of the web session is no token for the panel.
      const web = new Browser(t.app);
      await web.get('/login');
      const crossed = await t.app.inject({
        method: 'POST',
        url: '/admin/login',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `${web.cookieHeader()}; ${browser.cookieHeader()}`,
        },
        payload: new URLSearchParams({
          _token: web.csrf!,
          email: admin.email,
          password: admin.password,
        }).toString(),
      });
      assert.equal(crossed.statusCode, 419);

      // The admin guard has no remember-me (docs/security.md): the box is ignored, no cookie, no token.
      const remembered = await adminBrowser(t, admin, true);
      assert.equal(remembered.cookies.get('gatehouse_admin_remember'), undefined);
      const tokens = await t.db
        .selectFrom('remember_tokens')
        .select('id')
        .where('user_id', '=', admin.id)
        .where('guard', '=', 'admin')
        .execute();
      assert.equal(tokens.length, 0, 'no admin remember-me token is stored');
      remembered.cookies.delete('gatehouse_admin_session');
      assert.equal((await remembered.get('/admin')).statusCode, 302, 'no cookie brings the panel back');
    });
  },
  { overrides: { hasher: countingHasher() } },
);

test('PANEL_EMAIL_DOMAINS narrows the panel check: a flagged user outside the domains is refused like a wrong password', async () => {
  const t = await createTestApp('sqlite', { env: { PANEL_EMAIL_DOMAINS: 'staff.example' } });
  try {
    const inside = await t.createUser({ panelAccess: true, email: 'ops@staff.example' });
    const outside = await t.createUser({ panelAccess: true, email: 'ops@example.com' });
    const browser = new Browser(t.app);
    await browser.get('/admin/login');
    const refused = await browser.post('/admin/login', { email: outside.email, password: outside.password });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /These credentials do not match our records\./);
    const ok = await browser.post('/admin/login', { email: inside.email, password: inside.password });
    assert.equal(ok.statusCode, 302);
  } finally {
    await t.close();
  }
});

test('the admin session has its own, shorter idle lifetime (ADMIN_SESSION_LIFETIME)', async () => {
  const clock = fakeClock();
  const t = await createTestApp('sqlite', { env: { ADMIN_SESSION_LIFETIME: '10' }, overrides: { clock } });
  try {
    const user = await t.createUser({ panelAccess: true });
    const admin = await adminBrowser(t, user);
    const web = new Browser(t.app);
    await web.get('/login');
    assert.equal((await web.post('/login', { email: user.email, password: user.password })).statusCode, 302);
    clock.advance(9 * 60_000);
    assert.equal((await admin.get('/admin')).statusCode, 200, 'activity keeps it alive');
    clock.advance(10 * 60_000 + 1);
    const expired = await admin.get('/admin');
    assert.equal(expired.statusCode, 302);
    assert.equal(expired.headers.location, '/admin/login');
    assert.equal((await web.get('/dashboard')).statusCode, 200, 'the web session (120 minutes) lives on');
  } finally {
    await t.close();
  }
});
