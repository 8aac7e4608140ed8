import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { signedInBrowser } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { userWithPasskey } from '../helpers/passkeys.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';

const clock = fakeClock(midStep());

/** Whether this browser's session holds a password confirmation (JSON status route). */
async function confirmedStatus(browser: Browser) {
  const status = await browser.get('/user/confirmed-password-status', { accept: 'application/json' });
  return { status: status.statusCode, body: status.statusCode === 200 ? status.json() : null };
}

/** A signed-in browser whose password confirmation is fresh. */
async function confirmedMallory(t: TestApp) {
  const { user, browser } = await signedInBrowser(t);
  const confirmed = await browser.postJson('/user/confirm-password', { password: user.password });
  assert.equal(confirmed.statusCode, 204, confirmed.body);
  assert.deepEqual(await confirmedStatus(browser), { status: 200, body: { confirmed: true } });
  return { mallory: user, browser };
}

/** The confirmed routes answer as to a browser without a confirmation (423 for JSON). */
async function assertUnconfirmed(browser: Browser, label: string) {
  assert.deepEqual(await confirmedStatus(browser), { status: 200, body: { confirmed: false } }, label);
  for (const url of ['/user/two-factor-secret-key', '/user/two-factor-recovery-codes', '/user/export']) {
    const answer = await browser.get(url, { accept: 'application/json' });
    assert.equal(answer.statusCode, 423, `${label}: ${url} ${answer.body}`);
  }
}

/**
 * docs/security.md "A new login starts clean": a session started by any login (password, passkey,
 * two-factor challenge, remember-me) never inherits the previous session's password confirmation, pending
 * two-factor login or intended URL of another user; a login while another user is signed in is a switch
 * of user. The audit's repro: Mallory confirms her own password, then signs in with the victim's passkey in
 * the same browser and reads the victim's two-factor secret.
 */
await describeEachDialect(
  'a new login starts clean',
  (ctx) => {
    test('passkey door: a confirmed session signing in with another user’s passkey is not confirmed', async () => {
      const t = ctx();
      const victim = await userWithPasskey(t);
      const { browser } = await confirmedMallory(t);
      const options = await browser.get('/passkeys/login/options', { accept: 'application/json' });
      assert.equal(options.statusCode, 200, options.body);
      const login = await browser.postJson('/passkeys/login', {
        credential: victim.authenticator.get(options.json()),
      });
      assert.equal(login.statusCode, 204, login.body);
      const me = await browser.get('/user/sessions', { accept: 'application/json' });
      assert.equal(me.statusCode, 200, 'signed in as the victim');
      await assertUnconfirmed(browser, 'after the passkey switch');
    });

    test('password door: another user’s login, or the same user’s again, starts unconfirmed', async () => {
      const t = ctx();
      const victim = await t.createUser();
      const { mallory, browser } = await confirmedMallory(t);
      const login = await browser.postJson('/login', { email: victim.email, password: victim.password });
      assert.equal(login.statusCode, 204, login.body);
      await browser.get('/dashboard');
      await assertUnconfirmed(browser, 'after switching to the victim');

      const again = await confirmedMallory(t);
      const relogin = await again.browser.postJson('/login', {
        email: again.mallory.email,
        password: again.mallory.password,
      });
      assert.equal(relogin.statusCode, 204, relogin.body);
      await assertUnconfirmed(again.browser, 'after logging in again as oneself');
      assert.ok(mallory.id !== victim.id);
    });

    test('two-factor door: the password step signs the other user out; the completed login is not confirmed', async () => {
      const t = ctx();
      const victim = await t.createUser();
      const enrolled = await enableTwoFactor(t, victim);
      clock.advance(30_000);
      const { browser } = await confirmedMallory(t);
      const step = await browser.postJson('/login', { email: victim.email, password: victim.password });
      assert.equal(step.statusCode, 200, step.body);
      assert.deepEqual(step.json(), { two_factor: true });
      // A switch of user: Mallory is no longer signed in while the victim's login waits for its code.
      const between = await confirmedStatus(browser);
      assert.equal(between.status, 401, 'the previous user is signed out by the new login');
      await browser.get('/two-factor-challenge'); // the new session's CSRF token
      const done = await browser.postJson('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(done.statusCode, 204, done.body);
      await browser.get('/dashboard');
      await assertUnconfirmed(browser, 'after the two-factor switch');
    });

    test('remember-me door: a restored login does not take over the pending two-factor login of another user', async () => {
      const t = ctx();
      const victim = await t.createUser();
      const enrolled = await enableTwoFactor(t, victim);
      clock.advance(30_000);
      const remembered = await signedInBrowser(t, { remember: true });
      const rememberCookie = remembered.browser.cookies.get('gatehouse_remember');
      assert.ok(rememberCookie);

      // A guest browser with the victim's login pending (right password, code owed)…
      const browser = new Browser(t.app);
      await browser.get('/login');
      const step = await browser.postJson('/login', { email: victim.email, password: victim.password });
      assert.deepEqual(step.json(), { two_factor: true });
      // …is then restored by another account's remember-me cookie.
      browser.cookies.set('gatehouse_remember', rememberCookie);
      const restored = await browser.get('/dashboard');
      assert.equal(restored.statusCode, 200, 'restored by the remember-me cookie');
      const challenge = await browser.get('/two-factor-challenge');
      assert.equal(challenge.statusCode, 302, 'no pending login left to answer');
      const code = await browser.postJson('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(code.statusCode, 401, code.body);
      const me = await browser.get('/api/user', {
        accept: 'application/json',
        referer: 'http://gatehouse.test/',
      });
      assert.equal(me.json().id, remembered.user.id, 'still the remembered user, never the victim');
    });

    test('intended URL: where another user was going is not where the next login goes', async () => {
      const t = ctx();
      const victim = await t.createUser();
      const { browser } = await signedInBrowser(t);
      // Mallory asks for her export: bounced to the confirmation form, the export remembered for her.
      const bounce = await browser.get('/user/export');
      assert.equal(bounce.headers.location, '/user/confirm-password');
      await browser.get('/login');
      const login = await browser.post('/login', { email: victim.email, password: victim.password });
      assert.equal(login.statusCode, 302, login.body);
      assert.equal(login.headers.location, '/dashboard', 'the victim lands on the default page');

      // The same user coming back after the same bounce does continue there.
      const own = await signedInBrowser(t);
      await own.browser.get('/user/export');
      const back = await own.browser.post('/login', { email: own.user.email, password: own.user.password });
      assert.equal(back.headers.location, '/user/export');

      // And a guest's intended URL still belongs to whoever logs in.
      const guest = new Browser(t.app);
      assert.equal((await guest.get('/profile')).headers.location, '/login');
      await guest.get('/login');
      const first = await guest.post('/login', { email: victim.email, password: victim.password });
      assert.equal(first.headers.location, '/profile');
    });
  },
  { overrides: { clock } },
);
