import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { fakeClock, MINUTE } from '../../src/lib/clock.ts';
import { signedInBrowser } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import {
  accountsState,
  failureOf,
  fresh,
  openCallback,
  providerUrlOf,
  signedInAs,
  signInThrough,
  upstreamsForThisFile,
} from '../helpers/login-providers.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';
import { throughProvider } from '../helpers/upstream-oidc.ts';

/**
 * Account takeover through a login provider, the field's most repeated mistake
 * (docs/guides/login-providers.md, docs/security.md): each test is one attack, and each would succeed on
 * an implementation that skips the rule it targets — links by an unverified address (Zitadel
 * GHSA-992q-9gwp-7r79), trusts Microsoft's `email` claim ("nOAuth"), lets a provider claim an account
 * pre-registered with someone else's address, keeps state or PKCE apart from the browser or the provider
 * (Auth.js GHSA-x445-f3h2-j279), ignores the RFC 9207 `iss` (mix-up), the nonce, or the attempt's age.
 * After every attack: nobody is signed in, no identity is linked, no account is made.
 */
const up = await upstreamsForThisFile();
const clock = fakeClock(midStep());

/** Runs `attack` and asserts that it changed nothing and signed nobody in. */
async function changesNothing(t: TestApp, attack: () => Promise<Browser | undefined>) {
  const before = await accountsState(t);
  const browser = await attack();
  const after = await accountsState(t);
  assert.deepEqual(after, before, 'no account, identity, login or signed-in session appeared');
  if (browser !== undefined) assert.equal(await signedInAs(browser), null, 'nobody is signed in');
}

await describeEachDialect(
  'login provider takeover attempts',
  (ctx) => {
    before(() => ctx().services.identities.providers.settled());

    test('an address the provider does not say is verified never links an existing account', async () => {
      const t = ctx();
      const victim = await t.createUser();
      await changesNothing(t, async () => {
        // Google is trusted for e-mail, but this answer does not assert the address verified.
        up.google.signInAs({ sub: fresh('attacker').sub, email: victim.email, email_verified: false });
        const browser = new Browser(t.app);
        const trip = await signInThrough(browser, 'google');
        assert.equal(failureOf(trip.finish), 'link_first');
        return browser;
      });
      const page = await t.app.inject({ url: '/login?sign_in_error=link_first&provider=google' });
      assert.match(
        page.body,
        /An account with the e-mail address of your Google account already exists\. Log in to it first/,
      );
    });

    test('nOAuth: a provider not trusted for e-mail (Microsoft, a generic provider) never links by address, verified or not', async () => {
      const t = ctx();
      const victim = await t.createUser();
      for (const provider of ['microsoft', 'acme'] as const) {
        await changesNothing(t, async () => {
          // Anyone can set the `email` of an Entra ID account (or a tenant they run) to the victim's.
          up[provider].signInAs({ sub: fresh('attacker').sub, email: victim.email, email_verified: true });
          const browser = new Browser(t.app);
          const trip = await signInThrough(browser, provider);
          assert.equal(failureOf(trip.finish), 'link_first', provider);
          return browser;
        });
      }
    });

    test('an account pre-registered with someone else’s address (unverified) is not claimed by that person’s provider sign-in', async () => {
      const t = ctx();
      const target = fresh('owner');
      // The attacker registers the owner's address first, with a password of their own, and waits.
      const planted = await t.createUser({ email: target.email, verified: false });
      await changesNothing(t, async () => {
        up.google.signInAs({ sub: target.sub, email: target.email, email_verified: true });
        const browser = new Browser(t.app);
        const trip = await signInThrough(browser, 'google');
        assert.equal(failureOf(trip.finish), 'link_first');
        return browser;
      });
      // The attacker's password still opens only the attacker's own empty account: no identity on it.
      const linked = await t.db
        .selectFrom('identities')
        .select('id')
        .where('user_id', '=', planted.id)
        .execute();
      assert.deepEqual(linked, []);
    });

    test('login CSRF: a callback completed in one browser does nothing in another (no attempt there, or another one)', async () => {
      const t = ctx();
      const attacker = fresh('attacker');
      up.acme.signInAs({ sub: attacker.sub, email: attacker.email, email_verified: true });
      // The attacker completes the provider step in their own browser and keeps the callback unopened.
      const attackerBrowser = new Browser(t.app);
      const start = await attackerBrowser.get('/auth/acme');
      const callback = await throughProvider(String(start.headers.location), 'http://gatehouse.test');
      await changesNothing(t, async () => {
        const victim = new Browser(t.app);
        assert.equal(failureOf(await openCallback(victim, callback)), 'failed', 'no attempt in this browser');
        return victim;
      });
      await changesNothing(t, async () => {
        // The victim has a sign-in of their own under way at the same provider: another state.
        const victim = new Browser(t.app);
        await victim.get('/auth/acme');
        assert.equal(failureOf(await openCallback(victim, callback)), 'failed', 'another attempt');
        return victim;
      });
    });

    test('an attempt is bound to its provider: another provider’s callback neither opens it nor receives the code', async () => {
      const t = ctx();
      const who = fresh('bound');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      const tokenRequests = up.github.tokenRequests.length;
      await changesNothing(t, async () => {
        const browser = new Browser(t.app);
        const start = await browser.get('/auth/acme');
        const callback = await throughProvider(String(start.headers.location), 'http://gatehouse.test');
        // acme's code and state, without its `iss`, taken to GitHub's callback in the same browser.
        const moved = new URL(callback);
        moved.pathname = '/auth/github/callback';
        moved.searchParams.delete('iss');
        assert.equal(failureOf(await openCallback(browser, moved)), 'failed');
        return browser;
      });
      assert.equal(up.github.tokenRequests.length, tokenRequests, 'acme’s code was never sent to GitHub');
    });

    test('mix-up (RFC 9207): an `iss` that is not the provider’s, or none where the provider sends one, is refused before the code is used', async () => {
      const t = ctx();
      const who = fresh('mixup');
      up.google.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      for (const alter of [
        (url: URL) => url.searchParams.set('iss', up.acme.issuer),
        (url: URL) => url.searchParams.delete('iss'),
      ]) {
        const tokenRequests = up.google.tokenRequests();
        await changesNothing(t, async () => {
          const browser = new Browser(t.app);
          const trip = await signInThrough(browser, 'google', { alterCallback: alter });
          assert.equal(failureOf(trip.finish), 'failed');
          return browser;
        });
        assert.equal(up.google.tokenRequests(), tokenRequests, 'the code was not exchanged');
      }
    });

    test('a code issued by another provider is refused', async () => {
      const t = ctx();
      const attacker = fresh('attacker');
      up.acme.signInAs({ sub: attacker.sub, email: attacker.email, email_verified: true });
      const other = new Browser(t.app);
      const acmeStart = await other.get('/auth/acme');
      const acmeCallback = await throughProvider(String(acmeStart.headers.location), 'http://gatehouse.test');
      await changesNothing(t, async () => {
        // A Google sign-in in this browser, answered with acme's code (and Google's own state and iss).
        const browser = new Browser(t.app);
        const start = await browser.get('/auth/google');
        const state = new URL(String(start.headers.location)).searchParams.get('state')!;
        const forged = new URL('http://gatehouse.test/auth/google/callback');
        forged.searchParams.set('code', acmeCallback.searchParams.get('code')!);
        forged.searchParams.set('state', state);
        forged.searchParams.set('iss', up.google.issuer);
        assert.equal(failureOf(await openCallback(browser, forged)), 'failed');
        return browser;
      });
    });

    test('a state, nonce or PKCE challenge changed on the way is refused', async () => {
      const t = ctx();
      const who = fresh('tamper');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      const attacks: [string, (url: URL) => void, 'request' | 'callback'][] = [
        ['state', (url) => url.searchParams.set('state', 'x'.repeat(43)), 'callback'],
        // An ID token minted for another sign-in (its nonce) must not be accepted for this one.
        ['nonce', (url) => url.searchParams.set('nonce', 'n'.repeat(43)), 'request'],
        // An authorization code bound to the attacker's verifier cannot be redeemed with ours.
        ['code_challenge', (url) => url.searchParams.set('code_challenge', 'c'.repeat(43)), 'request'],
      ];
      for (const [what, alter, where] of attacks) {
        await changesNothing(t, async () => {
          const browser = new Browser(t.app);
          const trip = await signInThrough(
            browser,
            'acme',
            where === 'request' ? { alterRequest: alter } : { alterCallback: alter },
          );
          assert.equal(failureOf(trip.finish), 'failed', what);
          return browser;
        });
      }
    });

    test('an attempt older than 10 minutes is refused', async () => {
      const t = ctx();
      const who = fresh('late');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      await changesNothing(t, async () => {
        const browser = new Browser(t.app);
        const start = await browser.get('/auth/acme');
        const callback = await throughProvider(String(start.headers.location), 'http://gatehouse.test');
        clock.advance(10 * MINUTE + 1000);
        assert.equal(failureOf(await openCallback(browser, callback)), 'failed');
        return browser;
      });
    });

    test('a link started by one user is not completed for another signed in after them in the same browser', async () => {
      const t = ctx();
      const alice = await signedInBrowser(t);
      const bob = await t.createUser();
      const browser = alice.browser;
      await browser.postJson('/user/confirm-password', { password: alice.user.password });
      const who = fresh('link');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      const start = await browser.get('/auth/acme?link=1');
      assert.equal(start.statusCode, 200, start.body);
      const callback = await throughProvider(providerUrlOf(start)!, 'http://gatehouse.test');
      await browser.post('/logout');
      await browser.get('/login');
      await browser.post('/login', { email: bob.email, password: bob.password });
      const before = await accountsState(t);
      const answer = await openCallback(browser, callback);
      assert.equal(answer.statusCode, 302);
      assert.equal((await accountsState(t)).identities, before.identities, 'linked to nobody');
      assert.equal(await signedInAs(browser), bob.id, 'Bob stays who he is');
    });

    test('an identity linked to one user is never linked to another, nor moved', async () => {
      const t = ctx();
      const who = fresh('owned');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      const owner = new Browser(t.app);
      await signInThrough(owner, 'acme');
      const ownerId = await signedInAs(owner);
      const other = await signedInBrowser(t);
      await other.browser.postJson('/user/confirm-password', { password: other.user.password });
      const before = await accountsState(t);
      const trip = await signInThrough(other.browser, 'acme', { query: 'link=1' });
      assert.equal(trip.finish?.headers.location, '/profile/security#linked-accounts');
      const page = await other.browser.get('/profile/security');
      assert.match(page.body, /This Acme ID account is linked to another user of Gatehouse/);
      assert.equal((await accountsState(t)).identities, before.identities);
      const identity = await t.db
        .selectFrom('identities')
        .select('user_id')
        .where('subject', '=', who.sub)
        .executeTakeFirstOrThrow();
      assert.equal(identity.user_id, ownerId);
    });

    test('a provider sign-in starts clean: no password confirmation, pending two-factor login or intended URL of the user before', async () => {
      const t = ctx();
      const who = fresh('victim');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      const victimBrowser = new Browser(t.app);
      await signInThrough(victimBrowser, 'acme');
      const victimId = (await signedInAs(victimBrowser))!;

      // Mallory, signed in, asks for a page only she was going to (remembered for her), confirms her
      // password, then signs in as the victim's provider account in that browser.
      const { user: mallory, browser } = await signedInBrowser(t);
      assert.equal((await browser.get('/user/export')).headers.location, '/user/confirm-password');
      assert.equal(
        (await browser.postJson('/user/confirm-password', { password: mallory.password })).statusCode,
        204,
      );
      const trip = await signInThrough(browser, 'acme');
      assert.equal(trip.finish?.headers.location, '/dashboard', 'not where Mallory was going');
      assert.equal(await signedInAs(browser), victimId, 'a switch of user');
      const status = await browser.get('/user/confirmed-password-status', { accept: 'application/json' });
      assert.deepEqual(status.json(), { confirmed: false }, 'Mallory’s confirmation did not carry over');
      assert.equal((await browser.get('/user/export', { accept: 'application/json' })).statusCode, 423);

      // A sign-in that still owes a second factor signs out whoever was signed in.
      const enrolled = await enableTwoFactor(t, { id: victimId, email: who.email });
      clock.advance(30_000);
      const other = await signedInBrowser(t);
      const owed = await signInThrough(other.browser, 'acme');
      assert.equal(owed.finish?.headers.location, '/two-factor-challenge');
      assert.equal(await signedInAs(other.browser), null, 'the previous user is signed out');
      await other.browser.get('/two-factor-challenge');
      assert.equal(
        (await other.browser.post('/two-factor-challenge', { code: enrolled.code() })).statusCode,
        302,
      );
      assert.equal(await signedInAs(other.browser), victimId);
    });
  },
  { env: up.env, overrides: { clock } },
);
