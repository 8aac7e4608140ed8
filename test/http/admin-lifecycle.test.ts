import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { extractLinks, startSmtpSink } from '../helpers/smtp-sink.ts';

/**
 * The panel's Filament-like actions: invite a user (a mail with a set-password link), mail a reset or
 * verification link, delete a user with the admin's password (never oneself, never the owner), the
 * user filters and #id search; each audited and answered in the admin's language.
 */

const sink = await startSmtpSink();
after(() => sink.close());

async function signedInAdmin(t: TestApp) {
  const admin = await t.createUser({ panelAccess: true, name: 'Panel Admin' });
  const browser = new Browser(t.app);
  await browser.get('/admin/login');
  const login = await browser.post('/admin/login', { email: admin.email, password: admin.password });
  assert.equal(login.statusCode, 302);
  await browser.get('/admin');
  return { admin, browser };
}

const audit = (t: TestApp, event: string, subjectId: number) =>
  t.db
    .selectFrom('audit_log')
    .selectAll()
    .where('event', '=', event)
    .where('subject_id', '=', subjectId)
    .orderBy('id', 'desc')
    .executeTakeFirst();

const usersWithIds = async (t: TestApp, ids: number[]) =>
  (await t.db.selectFrom('users').select('id').where('id', 'in', ids).execute()).length;

const flashOf = (body: string) =>
  /<div class="status(?: alert)?" role="(?:status|alert)">([^<]*)<\/div>/.exec(body)?.[1];

await describeApp(
  'admin panel: invite, re-mail, delete, filters',
  (ctx) => {
    test('invite: the account exists without a password anyone knows; the mailed link sets it and verifies the address', async () => {
      const t = ctx();
      t.services.outbox.start();
      const { admin, browser } = await signedInAdmin(t);
      const form = await browser.get('/admin/users/new?lang=de');
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /<h1>Benutzer einladen<\/h1>/);
      const email = `invited.${Date.now()}@example.com`;

      const invalid = await browser.post('/admin/users', { name: '', email: 'nope' });
      assert.equal(invalid.statusCode, 422);
      assert.match(invalid.body, /<title>2 Fehler: Benutzer einladen/);

      const created = await browser.post('/admin/users', {
        name: 'Ingrid Invited',
        email: email.toUpperCase(),
      });
      assert.equal(created.statusCode, 302);
      const row = await t.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      assert.equal(created.headers.location, `/admin/users/${row.id}`);
      assert.equal(row.email_verified_at, null);
      assert.equal(row.locale, 'de', "the invitation is in the admin's language");
      assert.match(flashOf((await browser.get(`/admin/users/${row.id}`)).body) ?? '', /Einladung gesendet/);
      const invited = await audit(t, 'admin.user.invited', row.id);
      assert.equal(invited?.actor_id, admin.id);

      const again = await browser.post('/admin/users', { name: 'Twice', email });
      assert.equal(again.statusCode, 422);
      assert.match(again.body, /bereits vergeben|already been taken/);

      const mail = await sink.waitForMail((m) => m.envelope.to[0] === email);
      assert.equal(mail.subject, 'Ihr Gatehouse-Konto ist bereit');
      assert.doesNotMatch(mail.text, /Ingrid/, 'no admin-chosen name in a mail to an unverified address');
      const link = extractLinks(mail).find((l) => l.includes('/reset-password/'))!;
      const person = new Browser(t.app);
      const page = await person.get(link.replace('http://gatehouse.test', ''));
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /name="password"/);
      const token = decodeURIComponent(new URL(link).pathname.split('/').pop()!);
      const set = await person.post('/reset-password', {
        token,
        email,
        password: 'a passphrase of my own',
        password_confirmation: 'a passphrase of my own',
      });
      assert.equal(set.statusCode, 302);
      await person.get('/login');
      const login = await person.post('/login', { email, password: 'a passphrase of my own' });
      assert.equal(login.statusCode, 302);
      const after = await t.db
        .selectFrom('users')
        .select('email_verified_at')
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(after.email_verified_at, null, 'using the mailed link proved the address');
    });

    test('mail a password reset link (once a minute) and a verification link; both audited', async () => {
      const t = ctx();
      t.services.outbox.start();
      const { admin, browser } = await signedInAdmin(t);
      const user = await t.createUser({ verified: false, locale: 'fr' });
      const sent = await browser.post(`/admin/users/${user.id}/password-reset-link`);
      assert.equal(sent.statusCode, 302);
      const mail = await sink.waitForMail(
        (m) => m.envelope.to[0] === user.email && /mot de passe/i.test(m.subject),
      );
      assert.ok(
        extractLinks(mail).some((l) => l.includes('/reset-password/')),
        "in the user's language, with a link",
      );
      assert.equal((await audit(t, 'password.reset_requested', user.id))?.actor_id, admin.id);
      const twice = await browser.postJson(`/admin/users/${user.id}/password-reset-link`);
      assert.equal(twice.statusCode, 429);
      assert.match(twice.json().message, /less than a minute ago/);

      const verify = await browser.postJson(`/admin/users/${user.id}/verification-link`);
      assert.equal(verify.statusCode, 200);
      assert.match(verify.json().message, /new verification link was mailed/);
      await sink.waitForMail((m) => m.envelope.to[0] === user.email && m.text.includes('/email/verify/'));
      assert.equal((await audit(t, 'admin.user.verification_sent', user.id))?.actor_id, admin.id);
      const verified = await t.createUser();
      const nothing = await browser.postJson(`/admin/users/${verified.id}/verification-link`);
      assert.match(nothing.json().message, /already verified/);
      assert.equal(await audit(t, 'admin.user.verification_sent', verified.id), undefined);
      assert.equal((await browser.postJson('/admin/users/999999/verification-link')).statusCode, 404);
    });

    test('delete: needs the admin password; removes the user and what is theirs; audit keeps the id, not the address', async () => {
      const t = ctx();
      const { admin, browser } = await signedInAdmin(t);
      const user = await t.createUser();
      const token = await t.issueToken(user.email, user.password);
      await t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        payload: { email: user.email, password: 'wrong-password', device_name: 'x' },
      });

      const wrong = await browser.postJson(`/admin/users/${user.id}/delete`, { password: 'not my password' });
      assert.equal(wrong.statusCode, 422);
      assert.match(wrong.json().message, /password was incorrect/);
      const missing = await browser.post(`/admin/users/${user.id}/delete`, {});
      assert.equal(missing.statusCode, 302);
      assert.match(
        flashOf((await browser.get(`/admin/users/${user.id}`)).body) ?? '',
        /password was incorrect/,
      );
      assert.equal(await usersWithIds(t, [user.id]), 1, 'nothing deleted');

      const done = await browser.post(`/admin/users/${user.id}/delete`, { password: admin.password });
      assert.equal(done.statusCode, 302);
      assert.equal(done.headers.location, '/admin/users');
      assert.equal(await usersWithIds(t, [user.id]), 0);
      assert.equal(
        (
          await t.db
            .selectFrom('personal_access_tokens')
            .select('id')
            .where('user_id', '=', user.id)
            .execute()
        ).length,
        0,
      );
      assert.equal(
        (await t.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } })).statusCode,
        401,
      );
      const deleted = await audit(t, 'admin.user.deleted', user.id);
      assert.equal(deleted?.actor_id, admin.id);
      const rows = await t.db.selectFrom('audit_log').selectAll().where('subject_id', '=', user.id).execute();
      assert.ok(rows.length >= 3, 'the history stays');
      for (const row of rows)
        assert.ok(!(row.details ?? '').includes(user.email), `${row.event} forgot the address`);
      assert.equal((await browser.get(`/admin/users/${user.id}`)).statusCode, 404);
    });

    test('delete: never oneself, never the owner (the first make:admin)', async () => {
      const t = ctx();
      const { admin, browser } = await signedInAdmin(t);
      const self = await browser.postJson(`/admin/users/${admin.id}/delete`, { password: admin.password });
      assert.equal(self.statusCode, 403);
      const owner = await t.createUser({ panelAccess: true });
      await t.db
        .insertInto('audit_log')
        .values({
          event: 'admin.created',
          actor_id: null,
          subject_id: owner.id,
          ip_address: null,
          details: null,
          created_at: 1,
        })
        .execute();
      const page = await browser.get(`/admin/users/${owner.id}`);
      assert.doesNotMatch(
        page.body,
        new RegExp(`action="/admin/users/${owner.id}/delete"`),
        'no delete button',
      );
      const refused = await browser.postJson(`/admin/users/${owner.id}/delete`, { password: admin.password });
      assert.equal(refused.statusCode, 403);
      assert.match(refused.json().message, /owner/);
      assert.equal(await usersWithIds(t, [owner.id, admin.id]), 2);
    });

    test('user filters (disabled, unverified, panel access) and a #id search', async () => {
      const t = ctx();
      const { browser } = await signedInAdmin(t);
      const plain = await t.createUser({ name: 'Filter Plain' });
      const unverified = await t.createUser({ name: 'Filter Unverified', verified: false });
      const disabled = await t.createUser({ name: 'Filter Disabled' });
      await t.db
        .updateTable('users')
        .set({ disabled_at: Date.now() })
        .where('id', '=', disabled.id)
        .execute();
      const listed = async (query: string) => {
        const body = (await browser.get(`/admin/users?${query}`)).body;
        return [plain, unverified, disabled]
          .filter((u) => body.includes(`href="/admin/users/${u.id}"`))
          .map((u) => u.id);
      };
      assert.deepEqual(await listed('filter=disabled'), [disabled.id]);
      assert.deepEqual(await listed('filter=unverified'), [unverified.id]);
      assert.deepEqual(await listed('filter=admin'), []);
      assert.deepEqual(
        (await listed('filter=nonsense')).sort(),
        [plain.id, unverified.id, disabled.id].sort(),
      );
      assert.deepEqual(await listed(`q=%23${plain.id}`), [plain.id], '#id finds the user');
    });

    test('a lockout names the account it protects; a failed panel sign-in has no actor', async () => {
      const t = ctx();
      const { browser } = await signedInAdmin(t);
      const user = await t.createUser();
      const outsider = new Browser(t.app);
      await outsider.get('/admin/login');
      for (let i = 0; i < 6; i++)
        await outsider.post('/admin/login', { email: user.email, password: 'wrong-password' });
      const lockout = await audit(t, 'admin.login.lockout', user.id);
      assert.ok(lockout, 'the lockout row is about the user');
      const log = await browser.get(`/admin/audit?user=%23${user.id}&group=failures`);
      assert.match(log.body, /Panel sign-in failed|Panel lockout|locked/i);
      assert.doesNotMatch(log.body, /Command line/, 'nobody acted from the command line');
    });
  },
  { env: sink.env },
);
