import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { auditEvents, sendJson } from '../helpers/account.ts';
import { countRows, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { type AssertionOverrides, SoftwareAuthenticator } from '../helpers/passkey-authenticator.ts';
import { guestWithOptions, TEST_ORIGIN, userWithPasskey } from '../helpers/passkeys.ts';
import { enableTwoFactor } from '../helpers/two-factor.ts';

const clock = fakeClock(Date.UTC(2026, 10, 27, 9, 0, 15));
const FAILED = 'These credentials do not match our records.';

/** A guest's sign-in with `authenticator`'s passkey, bent by `overrides`; the answer to POST /passkeys/login. */
async function signIn(t: TestApp, authenticator: SoftwareAuthenticator, overrides: AssertionOverrides = {}) {
  const { browser, options } = await guestWithOptions(t);
  const credential = authenticator.get(options, overrides);
  return { browser, credential, answer: await browser.postJson('/passkeys/login', { credential }) };
}

function assertRefused(answer: { statusCode: number; json(): unknown; body: string }, label: string) {
  assert.equal(answer.statusCode, 422, `${label}: ${answer.body}`);
  assert.deepEqual(answer.json(), { message: FAILED, errors: { credential: [FAILED] } }, label);
}

/** Whether the browser is signed in (the dashboard opens instead of sending it to /login). */
async function isSignedIn(browser: Browser): Promise<boolean> {
  return (await browser.get('/dashboard')).statusCode === 200;
}

await describeApp(
  'passkeys: sign-in (docs/guides/passkeys.md)',
  (ctx) => {
    test('options for a guest: empty allowCredentials, RP id of APP_URL, UV preferred, 5 minutes', async () => {
      const { options } = await guestWithOptions(ctx());
      assert.match(options.challenge, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(options.rpId, 'gatehouse.test');
      assert.deepEqual(options.allowCredentials, []);
      assert.equal(options.userVerification, 'preferred');
      assert.equal(options.timeout, 300_000);
      // A browser without any cookie gets one, and its challenge is bound to it.
      const bare = await ctx().app.inject({
        url: '/passkeys/login/options',
        headers: { accept: 'application/json' },
      });
      assert.equal(bare.statusCode, 200);
      assert.ok(bare.cookies.some((c) => c.name === 'gatehouse_session'));
    });

    test('sign in: 204 with a fresh session id, signed in, last used and the counter recorded, audited as a login', async () => {
      const t = ctx();
      const { user, authenticator, passkeyId } = await userWithPasskey(t);
      const { browser, options } = await guestWithOptions(t);
      const guestId = browser.cookies.get('gatehouse_session');
      assert.ok(guestId);
      const answer = await browser.postJson('/passkeys/login', { credential: authenticator.get(options) });
      assert.equal(answer.statusCode, 204, answer.body);
      const fresh = answer.cookies.find((c) => c.name === 'gatehouse_session');
      assert.ok(fresh && fresh.value !== guestId, 'a new session id (fixation)');
      assert.equal(await isSignedIn(browser), true);
      const row = await t.db
        .selectFrom('passkeys')
        .selectAll()
        .where('id', '=', passkeyId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.last_used_at), clock.now());
      assert.equal(Number(row.counter), 1);
      const audit = await t.db
        .selectFrom('audit_log')
        .select(['event', 'details'])
        .where('subject_id', '=', user.id)
        .where('event', '=', 'login.succeeded')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(audit.details!), {
        channel: 'web',
        method: 'passkey',
        passkey_id: passkeyId,
      });

      // The account page shows it as used.
      const confirmed = await browser.postJson('/user/confirm-password', { password: user.password });
      assert.equal(confirmed.statusCode, 204);
      const list = (await browser.get('/user/passkeys', { accept: 'application/json' })).json();
      assert.equal(list[0].last_used_at, new Date(clock.now()).toISOString());
    });

    test('the form way: 302 to the intended URL, remember-me honoured', async () => {
      const t = ctx();
      const { authenticator } = await userWithPasskey(t);
      const browser = new Browser(t.app);
      const wall = await browser.get('/profile');
      assert.equal(wall.headers.location, '/login');
      await browser.get('/login');
      const options = (await browser.get('/passkeys/login/options', { accept: 'application/json' })).json();
      const answer = await browser.post('/passkeys/login', {
        credential: JSON.stringify(authenticator.get(options)),
        remember: '1',
      });
      assert.equal(answer.statusCode, 302, answer.body);
      assert.equal(answer.headers.location, '/profile');
      assert.ok(answer.cookies.some((c) => c.name === 'gatehouse_remember' && c.value !== ''));
      assert.equal((await browser.get('/profile')).statusCode, 200);
    });

    test('refused (422 on credential, not signed in): replayed, reused challenge, origin, RP id, signature, key, user handle, unknown, another browser, expired', async () => {
      const t = ctx();
      const { user, authenticator } = await userWithPasskey(t);
      const first = await signIn(t, authenticator);
      assert.equal(first.answer.statusCode, 204);
      // The same response again, from the browser that sent it (now signed in) and from another one.
      await first.browser.get('/dashboard');
      assertRefused(
        await first.browser.postJson('/passkeys/login', { credential: first.credential }),
        'replayed',
      );
      const other = await guestWithOptions(t);
      assertRefused(
        await other.browser.postJson('/passkeys/login', { credential: first.credential }),
        'replayed elsewhere',
      );

      const cases: Array<[string, AssertionOverrides]> = [
        ['wrong origin', { origin: 'https://gatehouse.test.evil.example' }],
        ['http vs https', { origin: 'https://gatehouse.test' }],
        ['wrong RP id', { rpId: 'evil.example' }],
        ['parent domain as RP id', { rpId: 'test' }],
        ['create instead of get', { type: 'webauthn.create' }],
        ['bad signature', { badSignature: true }],
        ['signed by another key', { otherKey: true }],
        ['another user handle', { userHandle: Buffer.alloc(32, 1).toString('base64url') }],
        ['no user handle', { userHandle: null }],
        ['a challenge never issued', { challenge: 'B'.repeat(43) }],
      ];
      for (const [label, overrides] of cases) {
        const { browser, answer } = await signIn(t, authenticator, overrides);
        assertRefused(answer, label);
        assert.equal(await isSignedIn(browser), false, `${label}: not signed in`);
      }

      // A challenge is spent by its first use, even a failed one.
      const { browser, options } = await guestWithOptions(t);
      assertRefused(
        await browser.postJson('/passkeys/login', {
          credential: authenticator.get(options, { badSignature: true }),
        }),
        'first try',
      );
      assertRefused(
        await browser.postJson('/passkeys/login', { credential: authenticator.get(options) }),
        'reused challenge',
      );

      // Bound to the browser session that asked for it.
      const asked = await guestWithOptions(t);
      const stranger = new Browser(t.app);
      await stranger.get('/login');
      assertRefused(
        await stranger.postJson('/passkeys/login', { credential: authenticator.get(asked.options) }),
        'challenge of another browser',
      );

      const unknown = new SoftwareAuthenticator(TEST_ORIGIN);
      unknown.create({
        ...asked.options,
        rp: { id: 'gatehouse.test', name: 'x' },
        user: { id: 'AAAA', name: 'x', displayName: 'x' },
        pubKeyCredParams: [],
      });
      const unknownTry = await guestWithOptions(t);
      assertRefused(
        await unknownTry.browser.postJson('/passkeys/login', { credential: unknown.get(unknownTry.options) }),
        'unknown credential',
      );

      const late = await guestWithOptions(t);
      clock.advance(5 * 60_000 + 1);
      assertRefused(
        await late.browser.postJson('/passkeys/login', { credential: authenticator.get(late.options) }),
        'expired',
      );

      for (const [label, credential] of [
        ['missing', undefined],
        ['null', null],
        ['text', 'x'],
        ['no response', { id: 'AAAA', rawId: 'AAAA', type: 'public-key' }],
      ] as const) {
        const guest = await guestWithOptions(t);
        assertRefused(await guest.browser.postJson('/passkeys/login', { credential }), label);
      }
      const failures = await auditEvents(t, user.id, 'passkey.login_failed');
      assert.ok(failures.length >= cases.length, 'failed sign-ins with a known passkey are audited');
      // The account still signs in.
      assert.equal((await signIn(t, authenticator)).answer.statusCode, 204);
    });

    test('counter: a rollback is refused and audited as a possible clone; non-counting authenticators keep working', async () => {
      const t = ctx();
      const { user, authenticator, passkeyId } = await userWithPasskey(t);
      assert.equal((await signIn(t, authenticator)).answer.statusCode, 204);
      assert.equal((await signIn(t, authenticator)).answer.statusCode, 204); // counter now 2
      for (const counter of [2, 1, 0]) {
        const { answer } = await signIn(t, authenticator, { counter });
        assertRefused(answer, `counter ${counter}`);
      }
      assert.equal((await auditEvents(t, user.id, 'passkey.clone_suspected')).length, 3);
      const row = await t.db
        .selectFrom('passkeys')
        .select('counter')
        .where('id', '=', passkeyId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.counter), 2, 'unchanged by the refusals');
      assert.equal(
        (await signIn(t, authenticator, { counter: 9 })).answer.statusCode,
        204,
        'a jump forward is fine',
      );

      const zero = await userWithPasskey(t, false);
      for (let i = 0; i < 3; i++) assert.equal((await signIn(t, zero.authenticator)).answer.statusCode, 204);
      assert.deepEqual(await auditEvents(t, zero.user.id, 'passkey.clone_suspected'), []);
    });

    test('two concurrent uses of one response: exactly one signs in', async () => {
      const t = ctx();
      const { authenticator } = await userWithPasskey(t);
      const { browser, options } = await guestWithOptions(t);
      const credential = authenticator.get(options);
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => browser.postJson('/passkeys/login', { credential })),
      );
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [204, 422, 422, 422]);
    });

    test('two-factor: a verified passkey satisfies it; one without user verification is asked for the code', async () => {
      const t = ctx();
      const { user, authenticator } = await userWithPasskey(t);
      await enableTwoFactor(t, user);
      const verified = await signIn(t, authenticator);
      assert.equal(verified.answer.statusCode, 204, 'no challenge after a passkey');
      const possession = await signIn(t, authenticator, { userVerified: false });
      assert.equal(possession.answer.statusCode, 200);
      assert.deepEqual(possession.answer.json(), { two_factor: true });
      const page = await possession.browser.get('/two-factor-challenge');
      assert.equal(page.statusCode, 200, 'the challenge is pending');
      assert.equal(await isSignedIn(possession.browser), false);
    });

    test('a disabled account cannot sign in with its passkey; a deleted account takes its passkeys along', async () => {
      const t = ctx();
      const { user, authenticator } = await userWithPasskey(t);
      await t.db.updateTable('users').set({ disabled_at: clock.now() }).where('id', '=', user.id).execute();
      assertRefused((await signIn(t, authenticator)).answer, 'disabled');
      const audit = { ip: null, now: clock.now() };
      await t.services.admin.deleteUser(user.id, audit);
      const left = await t.db.selectFrom('passkeys').select('id').where('user_id', '=', user.id).execute();
      assert.deepEqual(left, [], 'ON DELETE CASCADE');
    });

    test('CSRF: without the token 419, and the challenge is not spent', async () => {
      const t = ctx();
      const { authenticator } = await userWithPasskey(t);
      const { browser, options } = await guestWithOptions(t);
      const credential = authenticator.get(options);
      const audits = await countRows(t.db, 'audit_log');
      const forged = await sendJson(
        browser,
        'POST',
        '/passkeys/login',
        { credential },
        { 'x-csrf-token': 'forged' },
      );
      assert.equal(forged.statusCode, 419);
      assert.equal(await countRows(t.db, 'audit_log'), audits);
      assert.equal((await browser.postJson('/passkeys/login', { credential })).statusCode, 204);
    });
  },
  { overrides: { clock } },
);
