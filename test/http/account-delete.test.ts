import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { auditEvents, sendJson, signedInBrowser } from '../helpers/account.ts';
import { fullAccount } from '../helpers/account-data.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { startSmtpSink } from '../helpers/smtp-sink.ts';

const sink = await startSmtpSink();
after(() => sink.close());
const clock = fakeClock(Date.UTC(2026, 7, 1, 9));
const MINUTE = 60_000;

/** How many rows of `table` still belong to the user. */
async function rowsOf(
  t: TestApp,
  table:
    | 'sessions'
    | 'remember_tokens'
    | 'personal_access_tokens'
    | 'password_reset_tokens'
    | 'two_factor_credentials'
    | 'posts',
  userId: number,
): Promise<number> {
  return (await t.db.selectFrom(table).select('user_id').where('user_id', '=', userId).execute()).length;
}

async function userExists(t: TestApp, id: number): Promise<boolean> {
  return (await t.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Only the given users keep panel access: "the last admin" is then a fact of this database. */
async function onlyAdmins(t: TestApp, ids: readonly number[]): Promise<void> {
  await t.db
    .updateTable('users')
    .set({ can_access_panel: 0 })
    .where('id', 'not in', [...ids, 0])
    .execute();
  await t.db
    .updateTable('users')
    .set({ can_access_panel: 1 })
    .where('id', 'in', [...ids])
    .execute();
}

await describeApp(
  'account: deletion (docs/guides/account.md)',
  (ctx) => {
    test('guests: 401 JSON, 302 /login for the form; missing CSRF 419 and nothing deleted', async () => {
      const t = ctx();
      const guest = new Browser(t.app);
      await guest.get('/login');
      const json = await sendJson(guest, 'DELETE', '/user', { password: 'whatever it is' });
      assert.equal(json.statusCode, 401);
      assert.deepEqual(json.json(), { message: 'Unauthenticated.' });
      const form = await guest.post('/user', { _method: 'DELETE', password: 'whatever it is' });
      assert.equal(form.statusCode, 302);
      assert.equal(form.headers.location, '/login');

      const { user, browser } = await signedInBrowser(t);
      const forged = await t.app.inject({
        method: 'DELETE',
        url: '/user',
        payload: { password: user.password },
        headers: { accept: 'application/json', cookie: browser.cookieHeader() },
      });
      assert.equal(forged.statusCode, 419);
      const forgedForm = await browser.post('/user', {
        _method: 'DELETE',
        password: user.password,
        _token: 'not the token',
      });
      assert.equal(forgedForm.statusCode, 419);
      assert.ok(await userExists(t, user.id));
      assert.equal((await browser.get('/dashboard')).statusCode, 200);
    });

    test('the password: required, and a wrong one is 422 on `password`, audited, changes nothing', async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t);
      const missing = await sendJson(browser, 'DELETE', '/user', {});
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json().errors, { password: ['The password field is required.'] });
      const wrong = await sendJson(browser, 'DELETE', '/user', { password: 'not my password' });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json(), {
        message: 'The provided password was incorrect.',
        errors: { password: ['The provided password was incorrect.'] },
      });
      const page = await browser.post('/user', { _method: 'DELETE', password: 'still not it' });
      assert.equal(page.statusCode, 422);
      assert.match(page.body, /<title>1 error: /);
      assert.match(page.body, /id="field-delete-password"[^>]*autofocus[^>]*aria-invalid="true"/);
      assert.match(page.body, /id="field-delete-password-error">The provided password was incorrect\.</);
      assert.doesNotMatch(page.body, /still not it/, 'a password is never sent back');
      assert.ok(await userExists(t, user.id));
      assert.equal((await browser.get('/dashboard')).statusCode, 200);
      const events = await auditEvents(t, user.id);
      assert.equal(events.filter((e) => e === 'user.password_check_failed').length, 2);
      assert.ok(!events.includes('user.deleted'));
    });

    test('wrong passwords count toward the login throttle: the 6th is 429 even when right', async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t);
      for (let i = 0; i < 5; i++) {
        assert.equal(
          (await sendJson(browser, 'DELETE', '/user', { password: `wrong ${i} x` })).statusCode,
          422,
        );
      }
      const sixth = await sendJson(browser, 'DELETE', '/user', { password: user.password });
      assert.equal(sixth.statusCode, 429);
      assert.match(String(sixth.headers['retry-after']), /^\d+$/);
      assert.match(sixth.json().errors.password[0], /^Too many login attempts\./);
      assert.ok(await userExists(t, user.id));
      // The same counter as the login form.
      const login = new Browser(t.app);
      await login.get('/login');
      assert.equal(
        (await login.post('/login', { email: user.email, password: user.password })).statusCode,
        429,
      );
      clock.advance(MINUTE + 1000);
    });

    test('JSON: 204; every row of the account goes in one go, every credential is dead, audit keeps the id only', async () => {
      const t = ctx();
      const account = await fullAccount(t);
      const { user, browser, other } = account;
      const oldPending = await t.db
        .selectFrom('mail_outbox')
        .select('id')
        .where('recipient', 'in', [user.email, account.pendingEmail])
        .execute();
      assert.ok(oldPending.length >= 2, 'the reset and the change link wait in the outbox');

      const remembered = browser.cookies.get('gatehouse_remember');
      assert.ok(remembered, 'this browser is remembered');
      const deleted = await sendJson(browser, 'DELETE', '/user', { password: user.password });
      assert.equal(deleted.statusCode, 204, deleted.body);
      const cookies = new Map(deleted.cookies.map((c) => [c.name, c]));
      assert.ok(cookies.get('gatehouse_session')?.value, 'a fresh guest id replaces the session cookie');
      assert.equal(cookies.get('gatehouse_remember')?.value, '', 'the remember-me cookie is cleared');

      assert.equal(await userExists(t, user.id), false);
      for (const table of [
        'sessions',
        'remember_tokens',
        'personal_access_tokens',
        'password_reset_tokens',
        'two_factor_credentials',
        'posts',
      ] as const) {
        assert.equal(await rowsOf(t, table, user.id), 0, table);
      }
      const mail = await t.db
        .selectFrom('mail_outbox')
        .select(['recipient', 'kind'])
        .where('recipient', 'in', [user.email, account.pendingEmail])
        .execute();
      assert.deepEqual(
        mail,
        [{ recipient: user.email, kind: 'account-deleted' }],
        'only the goodbye is left',
      );

      for (const token of account.tokens) {
        const api = await t.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } });
        assert.equal(api.statusCode, 401);
      }
      assert.equal((await browser.get('/dashboard')).statusCode, 302);
      assert.equal((await other.get('/dashboard')).statusCode, 302);
      const stolen = await t.app.inject({
        url: '/dashboard',
        headers: { cookie: `gatehouse_remember=${remembered}` },
      });
      assert.equal(stolen.statusCode, 302, 'the old remember-me cookie signs nobody in');
      assert.equal(stolen.headers.location, '/login');
      const login = new Browser(t.app);
      await login.get('/login');
      assert.equal(
        (await login.post('/login', { email: user.email, password: user.password })).statusCode,
        422,
      );

      const audit = await t.db
        .selectFrom('audit_log')
        .selectAll()
        .where('subject_id', '=', user.id)
        .execute();
      assert.ok(audit.length >= 8, 'the history stays, under the id');
      for (const row of audit) {
        const details = row.details ?? '';
        assert.ok(!details.includes(user.email), `${row.event} forgot the address`);
        assert.ok(!details.includes(account.pendingEmail), `${row.event} forgot the pending address`);
      }
      const last = audit.at(-1)!;
      assert.equal(last.event, 'user.deleted');
      assert.equal(last.actor_id, user.id);
      assert.equal(last.details, null);
      const requested = audit.find((row) => row.event === 'user.email_change_requested')!;
      assert.equal(requested.details, '{}');
    });

    test('HTML: the form (_method=DELETE) signs this browser out, 302 / with a goodbye; the goodbye mail in its language', async () => {
      const t = ctx();
      t.services.outbox.start();
      const { user, browser } = await signedInBrowser(t, { remember: true });
      const page = await browser.get('/profile?lang=de');
      assert.match(
        page.body,
        /<form method="post" action="\/user" novalidate aria-describedby="delete-account-warning">/,
      );
      assert.match(page.body, /name="_method" value="DELETE"/);
      assert.ok(page.body.includes('>Konto löschen</h2>'));
      assert.ok(page.body.includes(user.email), 'the warning names the address the last mail goes to');
      const done = await browser.post('/user', { _method: 'DELETE', password: user.password });
      assert.equal(done.statusCode, 302);
      assert.equal(done.headers.location, '/');
      assert.equal(browser.cookies.has('gatehouse_remember'), false);
      const home = await browser.get('/');
      assert.match(home.body, /Ihr Konto wurde gelöscht\. Auf Wiedersehen\./);
      assert.equal((await browser.get('/dashboard')).statusCode, 302);
      const goodbye = await sink.waitForMail((m) => m.envelope.to[0] === user.email);
      assert.equal(goodbye.subject, 'Ihr Konto wurde gelöscht');
      assert.equal(await userExists(t, user.id), false);
      await t.services.outbox.stop();
    });

    test('the last user with panel access cannot delete itself: 422 with why, and the page says so', async () => {
      const t = ctx();
      const admin = await t.createUser({ panelAccess: true });
      await onlyAdmins(t, [admin.id]);
      const { browser } = await signedInBrowser(t, { user: admin });
      const refused = await sendJson(browser, 'DELETE', '/user', { password: admin.password });
      assert.equal(refused.statusCode, 422);
      const message =
        'You are the last user with access to the administration panel, so this account cannot be deleted. Give someone else access first.';
      assert.deepEqual(refused.json(), { message, errors: { account: [message] } });
      const form = await browser.post('/user', { _method: 'DELETE', password: admin.password });
      assert.equal(form.statusCode, 422);
      assert.ok(form.body.includes(message));
      const page = await browser.get('/profile');
      assert.ok(page.body.includes(message));
      assert.doesNotMatch(page.body, /action="\/user"/, 'no form that would refuse');
      assert.ok(await userExists(t, admin.id));
      // A second admin, and the first may go.
      const second = await t.createUser({ panelAccess: true });
      await onlyAdmins(t, [admin.id, second.id]);
      assert.equal(
        (await sendJson(browser, 'DELETE', '/user', { password: admin.password })).statusCode,
        204,
      );
      assert.equal(await userExists(t, admin.id), false);
    });

    test('two last admins deleting themselves at once: exactly one goes', async () => {
      const t = ctx();
      const a = await t.createUser({ panelAccess: true });
      const b = await t.createUser({ panelAccess: true });
      await onlyAdmins(t, [a.id, b.id]);
      const { browser: ba } = await signedInBrowser(t, { user: a });
      const { browser: bb } = await signedInBrowser(t, { user: b });
      const answers = await Promise.all([
        sendJson(ba, 'DELETE', '/user', { password: a.password }),
        sendJson(bb, 'DELETE', '/user', { password: b.password }),
      ]);
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [204, 422]);
      assert.equal(Number(await userExists(t, a.id)) + Number(await userExists(t, b.id)), 1);
    });

    test('the owner (the first make:admin) cannot delete itself, even with other admins', async () => {
      const t = ctx();
      const audit = { now: clock.now() };
      const made = await t.services.admin.create(
        { name: 'Owner', email: `owner-${Date.now()}@example.com`, password: 'owner pass phrase 1' },
        audit,
      );
      assert.equal(made.status, 'ok');
      const owner = made.status === 'ok' ? made.user : assert.fail('not created');
      assert.equal(await t.services.admin.ownerId(), owner.id);
      const helper = await t.createUser({ panelAccess: true });
      await onlyAdmins(t, [owner.id, helper.id]);
      const { browser } = await signedInBrowser(t, {
        user: { id: owner.id, email: owner.email, password: 'owner pass phrase 1', name: 'Owner' },
      });
      const refused = await sendJson(browser, 'DELETE', '/user', { password: 'owner pass phrase 1' });
      assert.equal(refused.statusCode, 422);
      assert.match(refused.json().errors.account[0], /owns this installation/);
      assert.match((await browser.get('/profile?lang=fr')).body, /propriétaire de cette installation/);
      await browser.get('/profile?lang=en');
      assert.ok(await userExists(t, owner.id));
    });
  },
  { env: sink.env, overrides: { clock } },
);
