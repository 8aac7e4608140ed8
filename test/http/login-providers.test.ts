import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { LOGIN_METHOD_KEY } from '../../src/auth/login/login-method.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { NO_PASSWORD } from '../../src/users/user.ts';
import { describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import {
  accountsState,
  auditOf,
  failureOf,
  fresh,
  latestMail,
  sessionValues,
  signedInAs,
  signInThrough,
  upstreamsForThisFile,
} from '../helpers/login-providers.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';

/**
 * Signing in with other providers (docs/guides/login-providers.md) through HTTP, against real upstream
 * parts run by the test: oidc-provider as "acme" and as stand-ins for Google and Microsoft (their
 * NAME_ISSUER pointing at it), and a GitHub stand-in speaking GitHub's OAuth and REST routes. The
 * linking rules one by one; the takeover attempts are test/security/login-provider-takeover.test.ts.
 */
const up = await upstreamsForThisFile();
const clock = fakeClock(midStep());
const METRICS_TOKEN = 'provider-metrics-token-0123456789';

await describeApp(
  'sign in with other providers',
  (ctx) => {
    before(() => ctx().services.identities.providers.settled());

    test('/login and /register show a button per provider; /auth/{provider} asks with state, nonce and PKCE S256 in a sealed cookie of 10 minutes', async () => {
      const t = ctx();
      for (const path of ['/login', '/register']) {
        const page = await t.app.inject({ url: path });
        for (const [name, label] of [
          ['github', 'GitHub'],
          ['google', 'Google'],
          ['microsoft', 'Microsoft'],
          ['acme', 'Acme ID'],
        ])
          assert.match(
            page.body,
            new RegExp(`href="/auth/${name}"[^>]*>Continue with ${label}<`),
            `${path} ${name}`,
          );
      }
      const german = await t.app.inject({ url: '/login?lang=de' });
      assert.match(german.body, />Weiter mit GitHub</);

      const browser = new Browser(t.app);
      const start = await browser.get('/auth/acme?remember=1');
      assert.equal(start.statusCode, 302);
      const to = new URL(String(start.headers.location));
      assert.equal(to.origin, up.acme.issuer);
      const q = to.searchParams;
      assert.equal(q.get('client_id'), 'acme-client');
      assert.equal(q.get('redirect_uri'), 'http://gatehouse.test/auth/acme/callback');
      assert.equal(q.get('response_type'), 'code');
      assert.deepEqual(q.get('scope')?.split(' ').sort(), ['email', 'openid', 'profile']);
      assert.equal(q.get('code_challenge_method'), 'S256');
      assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.match(q.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.match(q.get('nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
      const cookie = start.cookies.find((c) => c.name === 'gatehouse_upstream');
      assert.ok(cookie, 'the attempt cookie');
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      assert.equal(cookie.maxAge, 600);
      // Sealed: neither the state nor the verifier can be read from it.
      assert.ok(!cookie.value.includes(q.get('state')!), 'the state is not readable in the cookie');
      // No server-side state for a guest's start (docs/security.md "Guests cost nothing").
      assert.equal(
        start.cookies.find((c) => c.name === 'gatehouse_session'),
        undefined,
      );

      const unknown = await t.app.inject({ url: '/auth/nobody' });
      assert.equal(unknown.statusCode, 404);
      assert.equal((await t.app.inject({ url: '/auth/nobody/callback?code=x&state=y' })).statusCode, 404);
    });

    test('rule 3: a verified address at the provider makes a new verified account without a password, signed in', async () => {
      const t = ctx();
      const who = fresh('ada');
      up.acme.signInAs({
        sub: who.sub,
        email: who.email.toUpperCase(),
        email_verified: true,
        name: 'Ada Lovelace',
      });
      const browser = new Browser(t.app);
      const trip = await signInThrough(browser, 'acme');
      assert.equal(trip.finish?.statusCode, 302, trip.finish?.body);
      assert.equal(trip.finish?.headers.location, '/dashboard');
      const user = await t.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', who.email)
        .executeTakeFirstOrThrow();
      assert.equal(user.name, 'Ada Lovelace');
      assert.notEqual(user.email_verified_at, null, 'verified: the provider verified it');
      assert.equal(user.password, NO_PASSWORD, 'no password');
      assert.equal(await signedInAs(browser), user.id);
      const identity = await t.db
        .selectFrom('identities')
        .selectAll()
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        {
          provider: identity.provider,
          subject: identity.subject,
          email: identity.email,
          verified: identity.email_verified,
        },
        { provider: 'acme', subject: who.sub, email: who.email, verified: 1 },
      );
      assert.deepEqual((await auditOf(t, 'user.registered', user.id))[0]?.details, {
        method: 'provider',
        provider: 'acme',
      });
      assert.deepEqual((await auditOf(t, 'identity.linked', user.id))[0]?.details, {
        provider: 'acme',
        via: 'registration',
      });
      assert.deepEqual((await auditOf(t, 'login.succeeded', user.id))[0]?.details, {
        channel: 'web',
        method: 'provider',
        provider: 'acme',
      });
      // The session records how its user signed in (the OpenID provider's `amr`: fed).
      const values = await sessionValues(t, browser);
      assert.deepEqual(
        { ...(values?.[LOGIN_METHOD_KEY] as object), at: 0 },
        {
          proof: 'provider',
          provider: 'acme',
          secondFactor: false,
          at: 0,
        },
      );
      assert.equal(browser.cookies.get('gatehouse_upstream'), undefined, 'the attempt is spent');
      assert.equal(await latestMail(t, who.email, 'verify-email'), null, 'nothing to verify');
    });

    test('rule 3: an address the provider did not verify makes an unverified account, and the verification mail goes out', async () => {
      const t = ctx();
      const who = fresh('unverified');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: false });
      const browser = new Browser(t.app);
      const trip = await signInThrough(browser, 'acme');
      assert.equal(trip.finish?.statusCode, 302, trip.finish?.body);
      const user = await t.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', who.email)
        .executeTakeFirstOrThrow();
      assert.equal(user.email_verified_at, null);
      assert.equal(user.name, who.email.split('@')[0], 'no name from the provider: the address’s local part');
      assert.equal(await signedInAs(browser), user.id);
      assert.ok(await latestMail(t, who.email, 'verify-email'), 'the verification mail');
    });

    test('rule 1: the linked identity signs its user in again, with the remember flag from the start', async () => {
      const t = ctx();
      const who = fresh('again');
      up.google.signInAs({ sub: who.sub, email: who.email, email_verified: true, name: 'Grace' });
      const first = new Browser(t.app);
      await signInThrough(first, 'google');
      const userId = await signedInAs(first);
      assert.ok(userId);
      const before = await accountsState(t);

      // The provider now says another address (changed there): still the same person, by subject.
      up.google.signInAs({
        sub: who.sub,
        email: `changed.${who.email}`,
        email_verified: true,
        name: 'Grace',
      });
      const second = new Browser(t.app);
      const trip = await signInThrough(second, 'google', { query: 'remember=1' });
      assert.equal(trip.finish?.statusCode, 302, trip.finish?.body);
      assert.equal(await signedInAs(second), userId);
      assert.ok(second.cookies.get('gatehouse_remember'), 'remembered, as asked when it started');
      const after = await accountsState(t);
      assert.equal(after.users, before.users, 'no new account');
      assert.equal(after.identities, before.identities, 'no new identity');
      const identity = await t.db
        .selectFrom('identities')
        .selectAll()
        .where('subject', '=', who.sub)
        .executeTakeFirstOrThrow();
      assert.equal(identity.email, `changed.${who.email}`, 'the address the provider gives now is shown');

      const notRemembered = new Browser(t.app);
      await signInThrough(notRemembered, 'google');
      assert.equal(notRemembered.cookies.get('gatehouse_remember'), undefined);
    });

    test('rule 1 with two-factor: the challenge still applies, and the completed login records the provider', async () => {
      const t = ctx();
      const who = fresh('twofactor');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      const browser = new Browser(t.app);
      await signInThrough(browser, 'acme');
      const userId = (await signedInAs(browser))!;
      const enrolled = await enableTwoFactor(t, { id: userId, email: who.email });
      clock.advance(30_000);

      const again = new Browser(t.app);
      const trip = await signInThrough(again, 'acme', { query: 'remember=1' });
      assert.equal(trip.finish?.headers.location, '/two-factor-challenge');
      assert.equal(await signedInAs(again), null, 'not signed in before the code');
      assert.equal(again.cookies.get('gatehouse_remember'), undefined);
      assert.equal(
        (await auditOf(t, 'login.two_factor_challenged', userId)).at(-1)?.details.provider,
        'acme',
      );
      await again.get('/two-factor-challenge');
      const done = await again.post('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(done.statusCode, 302, done.body);
      assert.equal(await signedInAs(again), userId);
      assert.ok(again.cookies.get('gatehouse_remember'), 'the remember flag survived the challenge');
      assert.deepEqual((await auditOf(t, 'login.succeeded', userId)).at(-1)?.details, {
        channel: 'web',
        method: 'provider',
        provider: 'acme',
        two_factor: true,
      });
      const method = (await sessionValues(t, again))?.[LOGIN_METHOD_KEY] as Record<string, unknown>;
      assert.deepEqual([method.proof, method.provider, method.secondFactor], ['provider', 'acme', true]);
    });

    test('rule 2: a verified address of a trusted provider links the verified account, with a notice mail', async () => {
      const t = ctx();
      const who = fresh('linked');
      const local = await t.createUser({ email: who.email, name: 'Local Name' });
      up.google.signInAs({ sub: who.sub, email: who.email, email_verified: true, name: 'Google Name' });
      const browser = new Browser(t.app);
      const trip = await signInThrough(browser, 'google');
      assert.equal(trip.finish?.statusCode, 302, trip.finish?.body);
      assert.equal(await signedInAs(browser), local.id);
      const identity = await t.db
        .selectFrom('identities')
        .selectAll()
        .where('subject', '=', who.sub)
        .executeTakeFirstOrThrow();
      assert.equal(identity.user_id, local.id);
      assert.deepEqual((await auditOf(t, 'identity.linked', local.id))[0]?.details, {
        provider: 'google',
        via: 'verified_email',
      });
      const mail = await latestMail(t, local.email, 'identity-notice');
      assert.equal(mail?.subject, 'Google was linked to your account');
      assert.match(mail?.text ?? '', /profile\/security#linked-accounts/);
      const user = await t.db
        .selectFrom('users')
        .select(['name', 'password'])
        .where('id', '=', local.id)
        .executeTakeFirstOrThrow();
      assert.equal(user.name, 'Local Name', 'the account keeps its own name');
      assert.notEqual(user.password, NO_PASSWORD, 'and its password');
    });

    test('GitHub: the numeric id is the subject, the primary verified address comes from /user/emails (Enterprise API at /api/v3)', async () => {
      const t = ctx();
      const who = fresh('octo');
      up.github.signInAs({
        id: 9_000_000 + who.n,
        login: `octo${who.n}`,
        name: null,
        emails: [
          { email: `other.${who.email}`, primary: false, verified: true },
          { email: who.email, primary: true, verified: true },
        ],
      });
      const browser = new Browser(t.app);
      const trip = await signInThrough(browser, 'github');
      const authorize = up.github.requests.at(-1)!;
      assert.equal(authorize.get('code_challenge_method'), 'S256');
      assert.ok(authorize.get('state'));
      assert.equal(trip.finish?.statusCode, 302, trip.finish?.body);
      const identity = await t.db
        .selectFrom('identities')
        .selectAll()
        .where('provider', '=', 'github')
        .where('subject', '=', String(9_000_000 + who.n))
        .executeTakeFirstOrThrow();
      assert.equal(identity.email, who.email);
      const user = await t.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', identity.user_id)
        .executeTakeFirstOrThrow();
      assert.equal(user.email, who.email);
      assert.equal(user.name, `octo${who.n}`, 'no name: the login');
      assert.notEqual(user.email_verified_at, null);

      // A primary address GitHub has not verified makes an unverified account.
      const other = fresh('octo-unverified');
      up.github.signInAs({
        id: 8_000_000 + other.n,
        login: 'x',
        emails: [{ email: other.email, primary: true, verified: false }],
      });
      await signInThrough(new Browser(t.app), 'github');
      const unverified = await t.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', other.email)
        .executeTakeFirstOrThrow();
      assert.equal(unverified.email_verified_at, null);
    });

    test('failures return to /login with a translated message and change nothing', async () => {
      const t = ctx();
      const before = await accountsState(t);
      up.acme.denyNext();
      const denied = await signInThrough(new Browser(t.app), 'acme');
      assert.equal(failureOf(denied.finish), 'denied');
      const page = await t.app.inject({ url: String(denied.finish!.headers.location) });
      assert.match(
        page.body,
        /role="alert"><p>The sign-in with Acme ID was cancelled\. Nothing was changed\.<\/p>/,
      );
      const german = await t.app.inject({ url: `${denied.finish!.headers.location}&lang=de` });
      assert.match(german.body, /Die Anmeldung mit Acme ID wurde abgebrochen/);

      up.github.denyNext();
      const deniedAtGithub = await signInThrough(new Browser(t.app), 'github');
      assert.equal(failureOf(deniedAtGithub.finish), 'denied');

      // A callback without an attempt in this browser (opened twice, or never started here).
      const browser = new Browser(t.app);
      up.acme.signInAs({ sub: fresh('twice').sub, email: fresh('twice').email, email_verified: true });
      const trip = await signInThrough(browser, 'acme');
      const users = (await accountsState(t)).users;
      const again = await browser.get(`${trip.callback!.pathname}${trip.callback!.search}`);
      assert.equal(failureOf(again), 'failed');
      assert.equal((await accountsState(t)).users, users);
      await browser.get('/logout');

      const bare = await t.app.inject({ url: '/auth/acme/callback' });
      assert.equal(failureOf(bare), 'failed');
      // No free text reaches the page: an unknown reason or provider shows nothing.
      for (const query of ['sign_in_error=%3Cb%3Ex&provider=acme', 'sign_in_error=denied&provider=evil'])
        assert.doesNotMatch(
          (await t.app.inject({ url: `/login?${query}` })).body,
          /class="notice" role="alert"/,
        );
      const after = await accountsState(t);
      assert.equal(after.identities, before.identities + 1, 'only the one sign-in that succeeded');
    });

    test('each provider sign-in counts once in gatehouse_logins_total (web); a link does not', async () => {
      const t = ctx();
      const count = async (result: string) => {
        const text = (
          await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
        ).body;
        const line = new RegExp(
          `^gatehouse_logins_total\\{guard="web",result="${result}"\\} (\\d+)$`,
          'm',
        ).exec(text);
        return Number(line?.[1] ?? 0);
      };
      const [success, failed] = [await count('success'), await count('failed')];
      const who = fresh('metered');
      up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true });
      await signInThrough(new Browser(t.app), 'acme');
      up.acme.denyNext();
      await signInThrough(new Browser(t.app), 'acme');
      assert.deepEqual([await count('success'), await count('failed')], [success + 1, failed + 1]);
    });
  },
  { env: { ...up.env, METRICS_TOKEN }, overrides: { clock } },
);
