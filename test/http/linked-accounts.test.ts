import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { insertPasskey } from '../../src/passkeys/passkeys.repository.ts';
import { NO_PASSWORD } from '../../src/users/user.ts';
import { sendJson, signedInAdmin, signedInBrowser } from '../helpers/account.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import {
  auditOf,
  fresh,
  latestMail,
  signedInAs,
  signInThrough,
  upstreamsForThisFile,
} from '../helpers/login-providers.ts';

/**
 * Linked accounts on the account page (docs/guides/login-providers.md): the list (page and JSON), Link
 * with the password confirmation, Unlink refused while it is the last way in, an account without a
 * password setting one through the reset flow, the panel and the data export.
 */
const up = await upstreamsForThisFile();

/** A new account made by an acme sign-in (verified, no password), signed in in its own browser. */
async function providerAccount(t: TestApp, label = 'only') {
  const who = fresh(label);
  up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true, name: 'Provider Person' });
  const browser = new Browser(t.app);
  await signInThrough(browser, 'acme');
  const id = await signedInAs(browser);
  assert.ok(id);
  await browser.get('/profile/security');
  return { id, email: who.email, sub: who.sub, browser };
}

const linked = async (browser: Browser) => {
  const list = await browser.get('/user/linked-accounts', { accept: 'application/json' });
  assert.equal(list.statusCode, 200, list.body);
  return list.json() as { id: number; provider: string; label: string; email: string | null }[];
};

await describeApp(
  'linked accounts',
  (ctx) => {
    before(() => ctx().services.identities.providers.settled());

    test('the section and GET /user/linked-accounts list the identities; the page offers Link for the others', async () => {
      const t = ctx();
      const account = await providerAccount(t);
      const list = await linked(account.browser);
      assert.equal(list.length, 1);
      assert.deepEqual(
        { provider: list[0]!.provider, label: list[0]!.label, email: list[0]!.email },
        { provider: 'acme', label: 'Acme ID', email: account.email },
      );
      const page = await account.browser.get('/profile/security');
      assert.match(page.body, /id="linked-accounts"/);
      assert.match(page.body, /<td data-label="Service"><div>Acme ID<\/div><\/td>/);
      for (const provider of ['github', 'google', 'microsoft'])
        assert.match(page.body, new RegExp(`href="/auth/${provider}\\?link=1"`));
      assert.doesNotMatch(page.body, /href="\/auth\/acme\?link=1"/, 'already linked');
      // The last way in: no Unlink button, the reason instead, and the way to a password.
      assert.doesNotMatch(page.body, /action="\/user\/linked-accounts\//);
      assert.match(page.body, /This is your only way to sign in/);
      assert.match(page.body, /action="\/forgot-password"/);
      assert.equal(
        (await t.app.inject({ url: '/user/linked-accounts', headers: { accept: 'application/json' } }))
          .statusCode,
        401,
      );
    });

    test('Link asks for the password confirmation when there is a password, then links with a notice mail', async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t);
      const who = fresh('link');
      up.google.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      const unconfirmed = await browser.get('/auth/google?link=1');
      assert.equal(unconfirmed.headers.location, '/user/confirm-password');
      const json = await browser.get('/auth/google?link=1', { accept: 'application/json' });
      assert.equal(json.statusCode, 423);
      await browser.get('/user/confirm-password');
      const confirmed = await browser.post('/user/confirm-password', { password: user.password });
      assert.equal(confirmed.headers.location, '/auth/google?link=1', 'back to the link');
      const trip = await signInThrough(browser, 'google', { query: 'link=1' });
      // A page that moves on at once, not a 302 (a form's redirect chain may not leave the site).
      assert.equal(trip.start.statusCode, 200);
      assert.match(String(trip.start.headers.refresh), /^0;url=http:\/\/127\.0\.0\.1:\d+\/auth\?/);
      assert.match(trip.start.body, /Continuing to Google/);
      assert.equal(trip.finish?.headers.location, '/profile/security#linked-accounts');
      assert.match(
        (await browser.get('/profile/security')).body,
        /Google is linked: you can now sign in with it\./,
      );
      assert.deepEqual(
        (await linked(browser)).map((i) => [i.provider, i.email]),
        [['google', who.email]],
      );
      assert.deepEqual((await auditOf(t, 'identity.linked', user.id)).at(-1)?.details, {
        provider: 'google',
        via: 'account',
      });
      assert.equal(
        (await latestMail(t, user.email, 'identity-notice'))?.subject,
        'Google was linked to your account',
      );
      assert.equal(await signedInAs(browser), user.id, 'still the same user, same browser');

      // And the Google account now signs the user in, from another browser.
      const elsewhere = new Browser(t.app);
      await signInThrough(elsewhere, 'google');
      assert.equal(await signedInAs(elsewhere), user.id);

      // Linking a second Google account to the same user is refused; a guest's link goes to the login.
      const other = fresh('second');
      up.google.signInAs({ sub: other.sub, email: other.email, email_verified: true });
      const second = await signInThrough(browser, 'google', { query: 'link=1' });
      assert.equal(second.finish?.headers.location, '/profile/security#linked-accounts');
      assert.match(
        (await browser.get('/profile/security')).body,
        /Your account is already linked to Google\. Unlink that account first/,
      );
      assert.equal((await linked(browser)).length, 1);
      assert.equal((await new Browser(t.app).get('/auth/google?link=1')).headers.location, '/login');
    });

    test('an account without a password links without a confirmation; Unlink is refused while it is the last way in', async () => {
      const t = ctx();
      const account = await providerAccount(t, 'nopassword');
      const [only] = await linked(account.browser);
      const refused = await sendJson(account.browser, 'DELETE', `/user/linked-accounts/${only!.id}`);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(refused.json().errors.id[0], /Acme ID is your only way to sign in/);
      assert.equal((await linked(account.browser)).length, 1);

      const who = fresh('github');
      up.github.signInAs({
        id: 7_000_000 + who.n,
        login: 'gh',
        emails: [{ email: who.email, primary: true, verified: true }],
      });
      const trip = await signInThrough(account.browser, 'github', { query: 'link=1' });
      assert.equal(
        trip.finish?.headers.location,
        '/profile/security#linked-accounts',
        'no confirmation asked',
      );
      assert.equal((await linked(account.browser)).length, 2);

      // Two ways in now: one may go (a form with _method, back to the section), then the other may not.
      await account.browser.get('/profile/security');
      const unlinked = await account.browser.post(`/user/linked-accounts/${only!.id}`, { _method: 'DELETE' });
      assert.equal(unlinked.headers.location, '/profile/security#linked-accounts');
      assert.match((await account.browser.get('/profile/security')).body, /Acme ID is unlinked\./);
      assert.deepEqual((await auditOf(t, 'identity.unlinked', account.id)).at(-1)?.details, {
        provider: 'acme',
        identity_id: only!.id,
      });
      assert.equal(
        (await latestMail(t, account.email, 'identity-notice'))?.subject,
        'Acme ID was unlinked from your account',
      );
      const [github] = await linked(account.browser);
      assert.equal(
        (await sendJson(account.browser, 'DELETE', `/user/linked-accounts/${github!.id}`)).statusCode,
        422,
      );

      // A passkey is a way in too.
      const now = Date.now();
      await insertPasskey(t.db, {
        user_id: account.id,
        credential_hash: 'f'.repeat(48) + String(account.id).padStart(16, '0'),
        credential_id: `cred-${account.id}`,
        public_key: 'pk',
        counter: 0,
        transports: '[]',
        user_handle: 'h',
        name: 'Phone',
        created_at: now,
        updated_at: now,
        last_used_at: null,
      });
      assert.equal(
        (await sendJson(account.browser, 'DELETE', `/user/linked-accounts/${github!.id}`)).statusCode,
        204,
      );
      // Someone else's identity, or none: 404.
      assert.equal(
        (await sendJson(account.browser, 'DELETE', `/user/linked-accounts/${github!.id}`)).statusCode,
        404,
      );
      assert.equal((await sendJson(account.browser, 'DELETE', '/user/linked-accounts/abc')).statusCode, 404);
    });

    test('two concurrent unlinks of an account’s last two ways in: exactly one succeeds', async () => {
      const t = ctx();
      const account = await providerAccount(t, 'race');
      const who = fresh('race-google');
      up.google.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      await signInThrough(account.browser, 'google', { query: 'link=1' });
      const both = await linked(account.browser);
      assert.equal(both.length, 2);
      const answers = await Promise.all(
        both.map((identity) => sendJson(account.browser, 'DELETE', `/user/linked-accounts/${identity.id}`)),
      );
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [204, 422]);
      assert.equal((await linked(account.browser)).length, 1);
    });

    test('the actions that ask for the password tell an account without one to set one first, counting no attempt', async () => {
      // Before: "The provided password was incorrect." (and a failed attempt audited) for a password the
      // account does not have; docs/guides/login-providers.md says "set a password first".
      const t = ctx();
      const account = await providerAccount(t, 'nopassword-actions');
      const setOneFirst = /has no password yet[^"]*Set a password first/;
      for (const [method, url, body] of [
        ['POST', '/user/confirm-password', { password: 'a guess at nothing' }],
        ['DELETE', '/user', { password: 'a guess at nothing' }],
        ['DELETE', '/user/other-browser-sessions', { password: 'a guess at nothing' }],
        [
          'PUT',
          '/user/password',
          {
            current_password: 'a guess',
            password: 'violet-harbour-lantern-7',
            password_confirmation: 'violet-harbour-lantern-7',
          },
        ],
      ] as const) {
        const answer = await sendJson(account.browser, method, url, body);
        assert.equal(answer.statusCode, 422, `${method} ${url}: ${answer.body}`);
        assert.match(JSON.stringify(answer.json().errors), setOneFirst, `${method} ${url}`);
      }
      // The page says it too, in the person's language.
      const page = await account.browser.post('/user/confirm-password?lang=de', { password: 'x' });
      assert.equal(page.statusCode, 422);
      assert.match(page.body, /Ihr Konto hat noch kein Passwort/);
      assert.equal(await signedInAs(account.browser), account.id, 'still signed in: nothing was deleted');
      assert.deepEqual(await auditOf(t, 'user.password_check_failed', account.id), []);
    });

    test('an account without a password sets one through the reset flow, then signs in with it', async () => {
      const t = ctx();
      const account = await providerAccount(t, 'reset');
      // Before: no password works (and the check costs what a wrong password costs).
      const guest = new Browser(t.app);
      await guest.get('/login');
      assert.equal(
        (await guest.post('/login', { email: account.email, password: 'any password at all' })).statusCode,
        422,
      );
      await account.browser.get('/profile/security');
      const asked = await account.browser.post('/forgot-password', { email: account.email });
      assert.equal(asked.headers.location, '/forgot-password');
      const mail = await latestMail(t, account.email, 'reset-password');
      const link = /\/reset-password\/([A-Za-z0-9_-]+)\?email=/.exec(mail?.text ?? '');
      assert.ok(link, mail?.text);
      const resetter = new Browser(t.app);
      await resetter.get(`/reset-password/${link[1]}?email=${encodeURIComponent(account.email)}`);
      const reset = await resetter.post('/reset-password', {
        token: link[1]!,
        email: account.email,
        password: 'violet-harbour-lantern-7',
        password_confirmation: 'violet-harbour-lantern-7',
      });
      assert.equal(reset.statusCode, 302, reset.body);
      const row = await t.db
        .selectFrom('users')
        .select('password')
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.password, NO_PASSWORD);
      const { browser } = await signedInBrowser(t, {
        user: { id: account.id, email: account.email, password: 'violet-harbour-lantern-7', name: 'x' },
      });
      assert.equal(await signedInAs(browser), account.id);
      // With a password the last identity may go.
      const [identity] = await linked(browser);
      assert.equal(
        (await sendJson(browser, 'DELETE', `/user/linked-accounts/${identity!.id}`)).statusCode,
        204,
      );
    });

    test('the panel shows a user’s linked accounts; the data export holds them', async () => {
      const t = ctx();
      const account = await providerAccount(t, 'panel');
      const { browser: admin } = await signedInAdmin(t);
      const page = await admin.get(`/admin/users/${account.id}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<dt>Linked accounts<\/dt><dd>Acme ID <span class="email muted small">/);
      const exported = await account.browser.get('/user/export', { accept: 'application/json' });
      // No password: the export's confirmation cannot be given; the part is read through the use case.
      assert.equal(exported.statusCode, 423);
      const document = await t.services.account.exportData(account.id, {
        now: Date.now(),
        actorId: account.id,
      });
      assert.deepEqual(
        (document!['linked_accounts'] as { provider: string; subject: string }[]).map((i) => [
          i.provider,
          i.subject,
        ]),
        [['acme', account.sub]],
      );
    });
  },
  { env: up.env },
);
