import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { createPayloadCipher } from '../../src/mail/payload-cipher.ts';
import { auditEvents, sendJson } from '../helpers/account.ts';
import { countRows, describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { SoftwareAuthenticator } from '../helpers/passkey-authenticator.ts';
import {
  confirmedBrowser,
  enrolPasskey,
  guestWithOptions,
  passkeyCount,
  registrationResponse,
  TEST_ORIGIN,
  userWithPasskey,
} from '../helpers/passkeys.ts';

const clock = fakeClock(Date.UTC(2026, 10, 27, 10));

await describeApp(
  'passkeys: rename, delete, the account page (docs/guides/passkeys.md)',
  (ctx) => {
    test('rename (PUT) and delete: 204, audited, the owner mailed on delete; a deleted passkey no longer signs in', async () => {
      const t = ctx();
      const { user, browser, authenticator, passkeyId } = await userWithPasskey(t);
      const renamed = await sendJson(browser, 'PUT', `/user/passkeys/${passkeyId}`, { name: 'Work laptop' });
      assert.equal(renamed.statusCode, 204);
      const list = (await browser.get('/user/passkeys', { accept: 'application/json' })).json();
      assert.equal(list[0].name, 'Work laptop');
      const invalid = await sendJson(browser, 'PUT', `/user/passkeys/${passkeyId}`, { name: '' });
      assert.equal(invalid.statusCode, 422);
      assert.deepEqual(Object.keys(invalid.json().errors), ['name']);

      const mails = await countRows(t.db, 'mail_outbox');
      const deleted = await sendJson(browser, 'DELETE', `/user/passkeys/${passkeyId}`);
      assert.equal(deleted.statusCode, 204);
      assert.equal(await countRows(t.db, 'mail_outbox'), mails + 1);
      assert.equal(await passkeyCount(t, user.id), 0);
      assert.equal((await sendJson(browser, 'DELETE', `/user/passkeys/${passkeyId}`)).statusCode, 404);
      assert.deepEqual(await auditEvents(t, user.id, 'passkey.'), [
        'passkey.created',
        'passkey.renamed',
        'passkey.deleted',
      ]);
      const { browser: guest, options } = await guestWithOptions(t);
      const answer = await guest.postJson('/passkeys/login', { credential: authenticator.get(options) });
      assert.equal(answer.statusCode, 422);
    });

    test("another user's ids are 404 and change nothing; so are ids that cannot exist", async () => {
      const t = ctx();
      const owner = await userWithPasskey(t);
      const { browser } = await confirmedBrowser(t);
      const audits = await countRows(t.db, 'audit_log');
      for (const id of [String(owner.passkeyId), '0', '-1', 'abc', '99999999999', '2147483648']) {
        const put = await sendJson(browser, 'PUT', `/user/passkeys/${id}`, { name: 'mine now' });
        assert.equal(put.statusCode, 404, `PUT ${id}`);
        assert.equal(
          (await sendJson(browser, 'DELETE', `/user/passkeys/${id}`)).statusCode,
          404,
          `DELETE ${id}`,
        );
      }
      assert.equal(await countRows(t.db, 'audit_log'), audits);
      const list = (await owner.browser.get('/user/passkeys', { accept: 'application/json' })).json();
      assert.equal(list[0].name, 'Test key');
      assert.deepEqual((await browser.get('/user/passkeys', { accept: 'application/json' })).json(), []);
    });

    test('the account page without JavaScript: listed with added/last used, rename and delete as forms', async () => {
      const t = ctx();
      const { user, browser, passkeyId } = await userWithPasskey(t);
      const empty = await confirmedBrowser(t);
      const none = await empty.browser.get('/profile');
      assert.match(none.body, /id="passkeys"/);
      assert.match(none.body, /You have no passkeys yet\./);

      const page = await browser.get('/profile');
      assert.equal(page.statusCode, 200);
      const section = page.body.slice(page.body.indexOf('id="passkeys"'));
      assert.ok(
        page.body.indexOf('id="two-factor"') < page.body.indexOf('id="passkeys"'),
        'after two-factor',
      );
      assert.match(section, /Test key/);
      assert.match(section, /Never/, 'not used yet');
      assert.match(section, /<script src="\/assets\/passkeys\.js" defer><\/script>|data-passkey-register/);
      assert.match(section, /<noscript>/);

      // Rename through the form (_method=PUT): back to the section with a status line.
      const renamed = await browser.post(`/user/passkeys/${passkeyId}`, { _method: 'PUT', name: 'Desk key' });
      assert.equal(renamed.statusCode, 302);
      assert.equal(renamed.headers.location, '/profile#passkeys');
      const after = await browser.get('/profile');
      assert.match(after.body, /Passkey renamed\./);
      assert.match(after.body, /Desk key/);

      // A failed rename comes back open, with its error beside its own field.
      const failed = await browser.post(`/user/passkeys/${passkeyId}`, {
        _method: 'PUT',
        name: 'x'.repeat(300),
      });
      assert.equal(failed.statusCode, 422);
      assert.match(failed.body, /<details class="passkey-rename" open>/);
      assert.match(failed.body, new RegExp(`id="passkey-name-${passkeyId}-error"`));

      // A failed add (the script did not put a credential in) says so on the add form.
      const add = await browser.post('/user/passkeys', { name: 'No script', credential: '' });
      assert.equal(add.statusCode, 422);
      assert.match(add.body, /id="passkey-add-error"[^>]*role="alert">The passkey could not be verified/);

      const removed = await browser.post(`/user/passkeys/${passkeyId}`, { _method: 'DELETE' });
      assert.equal(removed.headers.location, '/profile#passkeys');
      assert.equal(await passkeyCount(t, user.id), 0);
      assert.match((await browser.get('/profile')).body, /Passkey deleted\./);
    });

    test('languages: the section and the mails in the user’s language', async () => {
      const t = ctx();
      const user = await t.createUser({ locale: 'de' });
      const { browser } = await confirmedBrowser(t, user);
      await enrolPasskey(browser, new SoftwareAuthenticator(TEST_ORIGIN), 'Handy');
      const mail = await t.db
        .selectFrom('mail_outbox')
        .select(['kind', 'payload'])
        .where('recipient', '=', user.email)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(mail.kind, 'passkey-notice');
      const message = JSON.parse(createPayloadCipher(t.config.appKey).open(mail.payload));
      assert.equal(message.subject, 'Ihrem Konto wurde ein Passkey hinzugefügt');
      assert.match(message.text, /„Handy“/);
      assert.match(message.text, /http:\/\/gatehouse\.test\/profile#passkeys/);
      for (const [lang, heading] of [
        ['de', 'Passkeys'],
        ['fr', 'Clés d’accès'],
        ['es', 'Llaves de acceso'],
      ] as const) {
        const page = await browser.get(`/profile?lang=${lang}`);
        assert.match(page.body, new RegExp(`<h2 id="passkeys-title">${heading}</h2>`), lang);
      }
    });

    test('the login page offers a passkey (conditional UI on the e-mail field); the panel login does not', async () => {
      const t = ctx();
      const login = await new Browser(t.app).get('/login');
      assert.match(login.body, /autocomplete="username webauthn"/);
      assert.match(login.body, /<form method="post" action="\/passkeys\/login"/);
      assert.match(login.body, /<script src="\/assets\/passkeys\.js" defer><\/script>/);
      assert.match(
        login.body,
        /class="passkey-login" data-passkey-login hidden/,
        'hidden until the script runs',
      );
      const admin = await t.app.inject({ url: '/admin/login' });
      assert.doesNotMatch(admin.body, /passkey/i);

      const script = await t.app.inject({ url: '/assets/passkeys.js' });
      assert.equal(script.statusCode, 200);
      assert.match(String(script.headers['content-type']), /^text\/javascript/);
      assert.match(script.body, /navigator\.credentials/, '@simplewebauthn/browser is bundled in');
      assert.doesNotMatch(script.body, /^import |require\(/m, 'one self-contained script');
    });

    test('POST /user/passkeys with a stale page: a credential created for another browser session is refused', async () => {
      const t = ctx();
      const { user, browser } = await confirmedBrowser(t);
      const credential = await registrationResponse(browser, new SoftwareAuthenticator(TEST_ORIGIN));
      // The same user signs out and in again: a new session id, and with it a new binding.
      await browser.post('/logout');
      const again = await confirmedBrowser(t, user);
      const answer = await sendJson(again.browser, 'POST', '/user/passkeys', { name: 'x', credential });
      assert.equal(answer.statusCode, 422);
    });
  },
  { overrides: { clock } },
);
