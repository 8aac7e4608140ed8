import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { auditEvents, signedInBrowser } from '../helpers/account.ts';
import { fullAccount } from '../helpers/account-data.ts';
import { describeApp } from '../helpers/app.ts';
import type { Browser } from '../helpers/browser-session.ts';

const clock = fakeClock(Date.UTC(2026, 7, 1, 9));
const MINUTE = 60_000;

/** Confirms the password of a signed-in browser (JSON), as the confirmation form would. */
async function confirm(browser: Browser, password: string) {
  const confirmed = await browser.postJson('/user/confirm-password', { password });
  assert.equal(confirmed.statusCode, 204, confirmed.body);
}

async function exportOf(browser: Browser) {
  const response = await browser.get('/user/export');
  assert.equal(response.statusCode, 200, response.body);
  return response;
}

await describeApp(
  'account: data export (docs/guides/account.md)',
  (ctx) => {
    test('guests: 302 /login (then back), JSON 401', async () => {
      const t = ctx();
      const page = await t.app.inject({ url: '/user/export' });
      assert.equal(page.statusCode, 302);
      assert.equal(page.headers.location, '/login');
      const json = await t.app.inject({ url: '/user/export', headers: { accept: 'application/json' } });
      assert.equal(json.statusCode, 401);
      assert.deepEqual(json.json(), { message: 'Unauthenticated.' });
    });

    test('password-confirmed: JSON 423; a browser goes through the form and comes back to the download', async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t);
      const locked = await browser.get('/user/export', { accept: 'application/json' });
      assert.equal(locked.statusCode, 423);
      assert.deepEqual(locked.json(), { message: 'Password confirmation required.' });
      const page = await browser.get('/user/export');
      assert.equal(page.statusCode, 302);
      assert.equal(page.headers.location, '/user/confirm-password');
      assert.deepEqual(await auditEvents(t, user.id, 'user.exported'), [], 'nothing exported yet');

      await browser.get('/user/confirm-password');
      const confirmed = await browser.post('/user/confirm-password', { password: user.password });
      assert.equal(confirmed.statusCode, 302);
      assert.equal(confirmed.headers.location, '/user/export');
      const download = await exportOf(browser);
      assert.match(String(download.headers['content-type']), /^application\/json; charset=utf-8$/);
      assert.equal(
        download.headers['content-disposition'],
        'attachment; filename="gatehouse-data-2026-08-01.json"',
      );
      assert.equal(download.headers['cache-control'], 'no-store');
      assert.equal(download.json().profile.email, user.email);
      // JSON clients get the same document once confirmed.
      const json = await browser.get('/user/export', { accept: 'application/json' });
      assert.equal(json.statusCode, 200);
      assert.deepEqual(await auditEvents(t, user.id, 'user.exported'), ['user.exported', 'user.exported']);
      // The confirmation runs out (PASSWORD_TIMEOUT=600 in this suite).
      clock.advance(10 * MINUTE);
      assert.equal((await browser.get('/user/export', { accept: 'application/json' })).statusCode, 423);
    });

    test('everything stored about the user, as named parts; never a secret the test created', async () => {
      const t = ctx();
      const account = await fullAccount(t);
      const { user, browser } = account;
      await confirm(browser, user.password);
      const response = await exportOf(browser);
      const body = response.body;
      const data = response.json();
      assert.deepEqual(Object.keys(data), [
        'exported_at',
        'profile',
        'pending_email',
        'sessions',
        'remembered_devices',
        'api_tokens',
        'two_factor',
        'passkeys',
        'linked_accounts',
        'password_reset',
        'audit_events',
        'posts',
        'organizations',
      ]);
      assert.equal(data.exported_at, new Date(clock.now()).toISOString());
      assert.deepEqual(Object.keys(data.profile).sort(), [
        'created_at',
        'disabled_at',
        'email',
        'email_verified_at',
        'id',
        'locale',
        'name',
        'panel_access',
        'updated_at',
      ]);
      assert.equal(data.profile.id, user.id);
      assert.equal(data.profile.name, user.name);
      assert.equal(data.pending_email.email, account.pendingEmail);

      assert.equal(data.sessions.length, 2);
      for (const session of data.sessions) {
        assert.deepEqual(Object.keys(session).sort(), [
          'created_at',
          'guard',
          'ip_address',
          'last_active_at',
          'user_agent',
        ]);
      }
      assert.deepEqual(data.sessions.map((s: { user_agent: string }) => s.user_agent).sort(), [
        'Browser A',
        'Browser B',
      ]);
      assert.equal(data.remembered_devices.length, 1);
      assert.equal(data.remembered_devices[0].user_agent, 'Browser A');
      assert.equal(data.remembered_devices[0].ip_address, '127.0.0.1');

      assert.deepEqual(data.api_tokens.map((token: { name: string }) => token.name).sort(), [
        'exported token',
        'test-device',
      ]);
      assert.deepEqual(Object.keys(data.api_tokens[0]).sort(), [
        'abilities',
        'created_at',
        'expires_at',
        'id',
        'last_used_at',
        'name',
      ]);
      assert.equal(data.two_factor.status, 'on');
      assert.equal(data.two_factor.recovery_codes_left, 8);
      assert.equal(data.two_factor.confirmed_at, new Date(clock.now()).toISOString());
      assert.deepEqual(data.passkeys, [
        { name: 'Work laptop', created_at: new Date(clock.now()).toISOString(), last_used_at: null },
      ]);
      assert.deepEqual(Object.keys(data.password_reset), ['requested_at']);
      assert.deepEqual(
        data.posts.map((post: { title: string; body: string }) => [post.title, post.body]),
        [['My first post', 'Written before leaving.']],
      );
      const events = data.audit_events.map((event: { event: string }) => event.event);
      for (const expected of [
        'login.succeeded',
        'token.created',
        'token.issued',
        'user.email_change_requested',
        'two_factor.enabled',
        'user.password_confirmed',
      ]) {
        assert.ok(events.includes(expected), `${expected} is in the history`);
      }
      const requested = data.audit_events.find(
        (e: { event: string }) => e.event === 'user.email_change_requested',
      );
      assert.deepEqual(requested.details, { to: account.pendingEmail }, 'details as objects');

      assert.ok(account.secrets.length >= 20);
      for (const secret of account.secrets) {
        assert.ok(secret.length >= 8, 'a secret long enough not to match by chance');
        assert.ok(!body.includes(secret), `the export holds no secret (${secret.slice(0, 6)}…)`);
        assert.ok(!body.includes(JSON.stringify(secret).slice(1, -1)), 'not even escaped');
      }
      assert.deepEqual(await auditEvents(t, user.id, 'user.exported'), ['user.exported']);
    });

    test("only the signed-in user's data: another account's rows stay out", async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t);
      const other = await fullAccount(t);
      await confirm(browser, user.password);
      const data = (await exportOf(browser)).json();
      assert.equal(data.profile.id, user.id);
      assert.equal(data.pending_email, null);
      assert.equal(data.password_reset, null);
      assert.deepEqual(data.api_tokens, []);
      assert.deepEqual(data.posts, []);
      assert.equal(data.two_factor.status, 'off');
      assert.equal(data.sessions.length, 1);
      const body = JSON.stringify(data);
      assert.ok(!body.includes(other.user.email), "no trace of the other account's address");
      for (const event of data.audit_events) {
        assert.ok(event.subject_id === user.id || event.actor_id === user.id, event.event);
      }
    });

    test('the account page offers the download; the link says when a confirmation comes first', async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t);
      const page = await browser.get('/profile');
      assert.match(page.body, /<section class="card account-section" id="export"/);
      assert.match(page.body, /<a class="button secondary" href="\/user\/export">Download my data<\/a>/);
      assert.match(page.body, /You will be asked to confirm your password first\./);
      await confirm(browser, user.password);
      assert.doesNotMatch((await browser.get('/profile')).body, /You will be asked to confirm your password/);
      for (const [lang, heading] of [
        ['de', 'Ihre Daten'],
        ['fr', 'Vos données'],
        ['es', 'Sus datos'],
      ]) {
        assert.ok((await browser.get(`/profile?lang=${lang}`)).body.includes(`>${heading}</h2>`), lang);
      }
      await browser.get('/profile?lang=en');
    });
  },
  { env: { PASSWORD_TIMEOUT: '600' }, overrides: { clock } },
);
