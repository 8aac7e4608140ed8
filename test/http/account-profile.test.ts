import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sessionKey } from '../../src/auth/sessions/sessions.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { auditEvents, sendJson, signedInBrowser } from '../helpers/account.ts';
import { countRows, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { extractLinks, startSmtpSink } from '../helpers/smtp-sink.ts';

const sink = await startSmtpSink();
after(() => sink.close());
const clock = fakeClock(Date.UTC(2026, 7, 1, 9));
const MINUTE = 60_000;
const NEW_PASSWORD = 'violet-harbour-lantern-7';

function ready(t: TestApp): TestApp {
  t.services.outbox.start();
  return t;
}

const mailTo = (email: string, subject: RegExp) =>
  sink.waitForMail((m) => m.envelope.to[0] === email && subject.test(m.subject));

let unique = 0;
const address = (name: string) => `${name}-${Date.now()}-${++unique}@example.net`;

await describeApp(
  'account: profile information, e-mail change, password (docs/guides/account.md)',
  (ctx) => {
    test('/profile is the account page with its sections, in four languages', async () => {
      const t = ready(ctx());
      const { browser } = await signedInBrowser(t);
      const page = await browser.get('/profile');
      assert.equal(page.statusCode, 200);
      for (const id of ['profile-information', 'password', 'email', 'api-tokens']) {
        assert.match(page.body, new RegExp(`<section class="card account-section[^"]*" id="${id}"`));
      }
      assert.match(page.body, /name="_method" value="PUT"/);
      for (const [lang, heading] of [
        ['de', 'Profilinformationen'],
        ['fr', 'Informations du profil'],
        ['es', 'Información del perfil'],
      ]) {
        const localized = await browser.get(`/profile?lang=${lang}`);
        assert.ok(localized.body.includes(`>${heading}</h2>`), lang);
      }
      await browser.get('/profile?lang=en');
    });

    test('guests: 302 /login for pages, 401 for JSON; missing CSRF 419', async () => {
      const t = ctx();
      const page = await t.app.inject({
        method: 'PUT',
        url: '/user/profile-information',
        headers: { accept: 'application/json' },
      });
      assert.equal(page.statusCode, 419);
      const guest = new Browser(t.app);
      await guest.get('/login');
      const json = await sendJson(guest, 'PUT', '/user/profile-information', {
        name: 'x',
        email: 'x@example.com',
      });
      assert.equal(json.statusCode, 401);
      assert.deepEqual(json.json(), { message: 'Unauthenticated.' });
      const form = await guest.post('/user/password', { _method: 'PUT' });
      assert.equal(form.statusCode, 302);
      assert.equal(form.headers.location, '/login');
    });

    test('the name changes at once; validation errors are 422 beside the field and change nothing', async () => {
      const t = ready(ctx());
      const { user, browser } = await signedInBrowser(t);
      const bad = await sendJson(browser, 'PUT', '/user/profile-information', {
        name: '',
        email: 'not-an-email',
      });
      assert.equal(bad.statusCode, 422);
      assert.deepEqual(bad.json().errors, {
        name: ['The name field is required.'],
        email: ['The email field must be a valid email address.'],
      });
      const form = await browser.post('/user/profile-information', {
        _method: 'PUT',
        name: 'x'.repeat(256),
        email: user.email,
      });
      assert.equal(form.statusCode, 422);
      assert.match(form.body, /The name field must not be greater than 255 characters\./);
      assert.match(form.body, /id="field-name"[^>]*autofocus/);
      const ok = await browser.post('/user/profile-information', {
        _method: 'PUT',
        name: '  Ada Lovelace ',
        email: user.email,
      });
      assert.equal(ok.statusCode, 302);
      assert.equal(ok.headers.location, '/profile#profile-information');
      const row = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.name, 'Ada Lovelace');
      assert.equal(row.email, user.email);
      assert.match((await browser.get('/profile')).body, /role="status">Saved\.</);
      assert.deepEqual(await auditEvents(t, user.id, 'user.'), ['user.profile_updated']);
    });

    test('a new address stays pending until its link is opened; then the old address is told', async () => {
      const t = ready(ctx());
      const { user, browser } = await signedInBrowser(t);
      const next = address('new');
      const response = await sendJson(browser, 'PUT', '/user/profile-information', {
        name: user.name,
        email: next.toUpperCase(),
      });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        message: `We sent a confirmation link to ${next}. Your address changes once you open it.`,
      });
      let row = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.email, user.email, 'the old address stays until the link is opened');
      assert.equal(row.pending_email, next);
      // The API still reports the old address.
      const mail = await mailTo(next, /Confirm your new email address/);
      assert.doesNotMatch(
        mail.text,
        new RegExp(user.name),
        'no user-chosen name in a mail to an unproven address',
      );
      const link = extractLinks(mail).find((l) => l.includes('/email/change/'))!;
      assert.match(
        link,
        /^http:\/\/gatehouse\.test\/email\/change\/\d+\/[0-9a-f]{40}\?expires=\d+&signature=[0-9a-f]{64}$/,
      );
      const path = link.replace('http://gatehouse.test', '');

      // Another signed-in user cannot use it; a tampered signature is 403.
      const { browser: other } = await signedInBrowser(t);
      assert.equal((await other.get(path)).statusCode, 403);
      // One hex digit changed (to '1' when it was '0': replacing it with '0' would leave 1 link in 16 intact).
      const tampered = path.replace(/signature=(.)/, (_, c: string) => `signature=${c === '0' ? '1' : '0'}`);
      assert.notEqual(tampered, path);
      assert.equal((await browser.get(tampered)).statusCode, 403);
      // A guest goes to log in first, then back here.
      const guest = await t.app.inject({ url: path });
      assert.equal(guest.statusCode, 302);
      assert.equal(guest.headers.location, '/login');

      const opened = await browser.get(path);
      assert.equal(opened.statusCode, 302);
      assert.equal(opened.headers.location, '/profile#email');
      row = await t.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
      assert.equal(row.email, next);
      assert.equal(row.pending_email, null);
      assert.equal(row.email_verified_at, clock.now());
      const notice = await mailTo(user.email, /Your email address was changed/);
      assert.match(notice.text, new RegExp(next.replace(/\./g, '\\.')));
      assert.equal((await browser.get(path)).statusCode, 403, 'a second click changes nothing');
      assert.deepEqual(await auditEvents(t, user.id, 'user.email'), [
        'user.email_change_requested',
        'user.email_changed',
      ]);
    });

    test('a new request replaces the pending one: the older link stops working; cancel clears it', async () => {
      const t = ready(ctx());
      const { user, browser } = await signedInBrowser(t);
      const first = address('first');
      const second = address('second');
      await sendJson(browser, 'PUT', '/user/profile-information', { name: user.name, email: first });
      const firstMail = await mailTo(first, /Confirm/);
      await sendJson(browser, 'PUT', '/user/profile-information', { name: user.name, email: second });
      await mailTo(second, /Confirm/);
      const firstPath = extractLinks(firstMail)
        .find((l) => l.includes('/email/change/'))!
        .replace('http://gatehouse.test', '');
      assert.equal((await browser.get(firstPath)).statusCode, 403);
      const page = await browser.get('/profile');
      assert.ok(page.body.includes(`Waiting for confirmation: ${second}.`));
      const cancel = await browser.post('/user/pending-email', { _method: 'DELETE' });
      assert.equal(cancel.statusCode, 302);
      const row = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.pending_email, null);
      assert.equal(row.email, user.email);
    });

    test('two browsers changing the address at once leave exactly one pending address', async () => {
      const t = ready(ctx());
      const { user, browser } = await signedInBrowser(t);
      const { browser: second } = await signedInBrowser(t, { user });
      const a = address('race-a');
      const b = address('race-b');
      const [ra, rb] = await Promise.all([
        sendJson(browser, 'PUT', '/user/profile-information', { name: 'Name A', email: a }),
        sendJson(second, 'PUT', '/user/profile-information', { name: 'Name A', email: b }),
      ]);
      assert.equal(ra.statusCode, 200);
      assert.equal(rb.statusCode, 200);
      const row = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.pending_email === a || row.pending_email === b);
      assert.equal(row.email, user.email);
      // No lost update: both requests are on record, the row is whole (the name both sent, the time
      // of the change that stayed), and the address that stayed is the one whose link works below.
      assert.equal(row.name, 'Name A');
      assert.equal(row.pending_email_at, clock.now());
      assert.deepEqual(await auditEvents(t, user.id, 'user.email_change_requested'), [
        'user.email_change_requested',
        'user.email_change_requested',
      ]);
      const mails = await Promise.all([mailTo(a, /Confirm/), mailTo(b, /Confirm/)]);
      const works = [];
      for (const mail of mails) {
        const path = extractLinks(mail)
          .find((l) => l.includes('/email/change/'))!
          .replace('http://gatehouse.test', '');
        works.push((await browser.get(path)).statusCode);
      }
      assert.deepEqual(works.sort(), [302, 403], 'only the link of the address that stayed pending works');
      const after = await t.db
        .selectFrom('users')
        .select(['email', 'pending_email'])
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(after, { email: row.pending_email, pending_email: null });
    });

    test('an address taken by another account: 422 and nothing changes', async () => {
      const t = ready(ctx());
      const { user, browser } = await signedInBrowser(t);
      const other = await t.createUser();
      const before = await countRows(t.db, 'mail_outbox');
      const taken = await sendJson(browser, 'PUT', '/user/profile-information', {
        name: 'Changed',
        email: other.email.toUpperCase(),
      });
      assert.equal(taken.statusCode, 422);
      assert.deepEqual(taken.json().errors, { email: ['The email has already been taken.'] });
      const row = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.name, user.name);
      assert.equal(row.pending_email, null);
      assert.equal(await countRows(t.db, 'mail_outbox'), before);
    });

    test('an unverified user corrects a mistyped address: the verification link goes to the new one', async () => {
      const t = ready(ctx());
      const user = await t.createUser({ verified: false });
      const { browser } = await signedInBrowser(t, { user });
      const fixed = address('fixed');
      const response = await sendJson(browser, 'PUT', '/user/profile-information', {
        name: user.name,
        email: fixed,
      });
      assert.equal(response.statusCode, 200);
      const row = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.email, fixed);
      assert.equal(row.email_verified_at, null);
      const mail = await mailTo(fixed, /Verify/);
      assert.ok(extractLinks(mail).some((l) => l.includes('/email/verify/')));
    });

    test('password change: wrong current password 422; success ends other sessions and every remember token', async () => {
      const t = ready(ctx());
      const { user, browser } = await signedInBrowser(t, { remember: true });
      const { browser: other } = await signedInBrowser(t, { user, remember: true });
      const wrong = await sendJson(browser, 'PUT', '/user/password', {
        current_password: 'not my password',
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json().errors, {
        current_password: ['The provided password does not match your current password.'],
      });
      const weak = await sendJson(browser, 'PUT', '/user/password', {
        current_password: user.password,
        password: 'password',
        password_confirmation: 'password',
      });
      assert.equal(weak.statusCode, 422);
      const oldSession = browser.cookies.get('gatehouse_session')!;
      const oldRemember = browser.cookies.get('gatehouse_remember')!;
      const form = await browser.post('/user/password', {
        _method: 'PUT',
        current_password: user.password,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(form.statusCode, 302);
      assert.equal(form.headers.location, '/profile#password');
      const newSession = browser.cookies.get('gatehouse_session')!;
      assert.notEqual(newSession, oldSession, 'this browser gets a fresh session id');
      assert.notEqual(
        browser.cookies.get('gatehouse_remember'),
        oldRemember,
        'and a fresh remember-me token',
      );
      assert.equal((await browser.get('/profile')).statusCode, 200, 'this browser stays signed in');
      const sessions = await t.db
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', user.id)
        .execute();
      assert.deepEqual(
        sessions.map((s) => s.id),
        [sessionKey(newSession)],
      );
      assert.equal(
        (await t.db.selectFrom('remember_tokens').select('id').where('user_id', '=', user.id).execute())
          .length,
        1,
      );
      // The other browser: its session and its remember-me cookie are both dead.
      const otherPage = await other.get('/dashboard');
      assert.equal(otherPage.statusCode, 302);
      assert.equal(
        (await t.app.inject({ url: '/dashboard', cookies: { gatehouse_remember: oldRemember } })).statusCode,
        302,
      );
      const mail = await mailTo(user.email, /Your password was changed/);
      assert.match(mail.text, /Every other browser was signed out/);
      // The new password works, the old one not.
      const login = new Browser(t.app);
      await login.get('/login');
      assert.equal(
        (await login.post('/login', { email: user.email, password: NEW_PASSWORD })).statusCode,
        302,
      );
      assert.ok((await auditEvents(t, user.id)).includes('user.password_changed'));
    });

    test('password change keeps API tokens by default', async () => {
      const t = ready(ctx());
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password);
      const { browser } = await signedInBrowser(t, { user });
      const changed = await sendJson(browser, 'PUT', '/user/password', {
        current_password: user.password,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(changed.statusCode, 204);
      const api = await t.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } });
      assert.equal(api.statusCode, 200);
      clock.advance(2 * MINUTE);
    });
  },
  { env: sink.env, overrides: { clock } },
);
