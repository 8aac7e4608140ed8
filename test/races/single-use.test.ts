import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { ROTATION_GRACE_MS } from '../../src/auth/remember-me/remember-me.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { countRows, describeEachDialect } from '../helpers/app.ts';
import { auditCount, browserOn, mailedLink, queuedMail, tally } from './support.ts';

const NEW_PASSWORD = 'amber-kestrel-orchard-55';
const N = 20;
const clock = fakeClock();

/**
 * Issue 7 §5: secrets that may be used once — a reset token, a verification link, a remember-me
 * cookie — used by 20 requests at the same moment: exactly one wins, the others get the ordinary
 * refusal, nothing answers 500.
 */
await describeEachDialect(
  'race: 20 concurrent uses of one single-use secret',
  (ctx) => {
    test('one reset token from the mailed link: one password change, 19 × "invalid token"', async () => {
      const app = ctx();
      const user = await app.createUser();
      const requester = await browserOn(app, '/forgot-password');
      assert.equal((await requester.post('/forgot-password', { email: user.email })).statusCode, 302);
      const link = mailedLink(await queuedMail(app, user.email, 'reset-password'), '/reset-password/');
      const token = link.pathname.split('/').pop()!;
      const email = link.searchParams.get('email')!;
      assert.equal(email, user.email);
      const tokensBefore = await countRows(app.db, 'personal_access_tokens');

      const browsers = await Promise.all(
        Array.from({ length: N }, () => browserOn(app, link.pathname + link.search)),
      );
      const responses = await Promise.all(
        browsers.map((b) =>
          b.post('/reset-password', {
            token,
            email,
            password: NEW_PASSWORD,
            password_confirmation: NEW_PASSWORD,
          }),
        ),
      );
      assert.deepEqual(tally(responses), { 302: 1, 422: N - 1 });
      assert.equal(responses.find((r) => r.statusCode === 302)!.headers.location, '/login');
      for (const r of responses.filter((r) => r.statusCode === 422)) {
        assert.match(r.body, /This password reset token is invalid\./);
      }
      assert.equal(await auditCount(app, 'password.reset', user.id), 1);
      const changed = await app.db
        .selectFrom('mail_outbox')
        .select('id')
        .where('recipient', '=', user.email)
        .where('kind', '=', 'password-changed')
        .execute();
      assert.equal(changed.length, 1, 'one "password changed" notice');
      assert.equal(await countRows(app.db, 'personal_access_tokens'), tokensBefore);
      await app.issueToken(user.email, NEW_PASSWORD);
    });

    test('one verification link from the mail: all 20 land on the dashboard, one verification is recorded', async () => {
      const app = ctx();
      const browser = await browserOn(app, '/register');
      const email = `verify-race-${Date.now()}@example.com`;
      const registered = await browser.post('/register', {
        name: 'Verifier',
        email,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(registered.statusCode, 302);
      const link = mailedLink(await queuedMail(app, email, 'verify-email'), '/email/verify/');
      const responses = await Promise.all(
        Array.from({ length: N }, () =>
          app.app.inject({ url: link.pathname + link.search, headers: { cookie: browser.cookieHeader() } }),
        ),
      );
      // Opening a valid link twice is harmless (Laravel answers both the same way); what must happen
      // once is the state change and its audit row.
      assert.deepEqual(tally(responses), { 302: N });
      for (const r of responses) assert.equal(r.headers.location, '/dashboard?verified=1');
      const user = await app.db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      assert.notEqual(user.email_verified_at, null);
      assert.equal(await auditCount(app, 'email.verified', user.id), 1);
    });

    test('one remember-me cookie: of 20 concurrent uses exactly one gets in and rotates it; a later replay is theft', async () => {
      const app = ctx();
      const user = await app.createUser();
      const browser = await browserOn(app, '/login');
      const login = await browser.post('/login', {
        email: user.email,
        password: user.password,
        remember: '1',
      });
      assert.equal(login.statusCode, 302);
      const remember = browser.cookies.get('gatehouse_remember');
      assert.ok(remember, 'a remember-me cookie was set');

      // The session has ended; the browser comes back with 20 tabs at once, holding only the cookie.
      // Only one request can rotate it (compare-and-swap) and get in; the others present the validator
      // that was current a moment ago (ROTATION_GRACE_MS): refused quietly, cookie left alone, no alarm.
      const responses = await Promise.all(
        Array.from({ length: N }, () =>
          app.app.inject({ url: '/dashboard', headers: { cookie: `gatehouse_remember=${remember}` } }),
        ),
      );
      assert.deepEqual(tally(responses), { 200: 1, 302: N - 1 });
      const rotations = responses.filter((r) =>
        r.cookies.some((c) => c.name === 'gatehouse_remember' && c.value !== ''),
      );
      assert.equal(rotations.length, 1, 'exactly one response carries a new remember-me cookie');
      const cleared = responses.filter((r) =>
        r.cookies.some((c) => c.name === 'gatehouse_remember' && c.value === ''),
      );
      assert.equal(cleared.length, 0, 'no tab lost the cookie');
      assert.equal(await auditCount(app, 'remember.theft_suspected', user.id), 0);

      // The winner's new cookie works later; the old one replayed after the grace is proof of theft:
      // it is refused and every remember-me token of the user is revoked (the new one too).
      const rotated = rotations[0]!.cookies.find((c) => c.name === 'gatehouse_remember')!.value;
      clock.advance(ROTATION_GRACE_MS + 1000);
      const replay = await app.app.inject({
        url: '/dashboard',
        headers: { cookie: `gatehouse_remember=${remember}` },
      });
      assert.equal(replay.statusCode, 302);
      assert.equal(await auditCount(app, 'remember.theft_suspected', user.id), 1);
      const afterTheft = await app.app.inject({
        url: '/dashboard',
        headers: { cookie: `gatehouse_remember=${rotated}` },
      });
      assert.equal(afterTheft.statusCode, 302);
    });
  },
  // At the real argon2id cost: the password hash of each use is part of the window the race needs.
  { overrides: { clock }, argon2: OWASP_ARGON2ID },
);
