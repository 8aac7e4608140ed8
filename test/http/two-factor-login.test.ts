import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { countRows, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';

const CODE_INVALID = 'The provided two factor authentication code was invalid.';
const RECOVERY_INVALID = 'The provided two factor recovery code was invalid.';
const THROTTLE = /Too many login attempts\. Please try again in (\d+) seconds\./;
const clock = fakeClock(midStep());

async function auditEvents(ctx: TestApp, userId: number): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('audit_log')
    .select('event')
    .where('subject_id', '=', userId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.event);
}

/** A browser that passed the password step: it holds a pending login. */
async function passwordStep(ctx: TestApp, user: { email: string; password: string }, extra = {}) {
  const browser = new Browser(ctx.app);
  await browser.get('/login');
  const login = await browser.post('/login', { email: user.email, password: user.password, ...extra });
  assert.equal(login.statusCode, 302);
  assert.equal(login.headers.location, '/two-factor-challenge');
  return browser;
}

await describeApp(
  'two-factor login (docs/guides/two-factor.md)',
  (ctx) => {
    test('the right password alone is no login: a pending login, the challenge page, no session', async () => {
      const user = await ctx().createUser();
      await enableTwoFactor(ctx(), user);
      const browser = await passwordStep(ctx(), user);
      const dashboard = await browser.get('/dashboard');
      assert.equal(dashboard.statusCode, 302, 'not authenticated yet');
      assert.equal(dashboard.headers.location, '/login');
      const page = await browser.get('/two-factor-challenge');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /autocomplete="one-time-code"/);
      assert.match(page.body, /inputmode="numeric"/);
      const events = await auditEvents(ctx(), user.id);
      assert.ok(events.includes('login.two_factor_challenged'));
      assert.ok(!events.includes('login.succeeded'), 'the audit trail hears of no login yet');
    });

    test('the right code: logged in with a fresh session id, to the intended URL', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(30_000);
      const browser = new Browser(ctx().app);
      assert.equal((await browser.get('/profile')).headers.location, '/login');
      await browser.get('/login');
      await browser.post('/login', { email: user.email, password: user.password });
      const pendingId = browser.cookies.get('gatehouse_session');
      await browser.get('/two-factor-challenge');
      const done = await browser.post('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(done.statusCode, 302);
      assert.equal(done.headers.location, '/profile');
      assert.notEqual(browser.cookies.get('gatehouse_session'), pendingId, 'a fresh session id');
      assert.equal((await browser.get('/dashboard')).statusCode, 200);
      assert.ok((await auditEvents(ctx(), user.id)).includes('login.succeeded'));
      // The pending login is spent: the challenge sends the browser back to the login form.
      const again = await browser.get('/two-factor-challenge');
      assert.equal(again.headers.location, '/login');
    });

    test('a code is accepted once: replay within its window is refused, also in a new login', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      // The confirmation spent the current step already.
      let browser = await passwordStep(ctx(), user);
      let refused = await browser.post('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(refused.statusCode, 422);
      assert.ok(refused.body.includes(CODE_INVALID));
      clock.advance(30_000);
      const code = enrolled.code();
      assert.equal((await browser.post('/two-factor-challenge', { code })).statusCode, 302);
      browser = await passwordStep(ctx(), user);
      refused = await browser.postJson('/two-factor-challenge', { code });
      assert.equal(refused.statusCode, 422);
      assert.deepEqual(refused.json(), { message: CODE_INVALID, errors: { code: [CODE_INVALID] } });
      // An older code (previous step, within drift) is refused too once a newer one was used.
      refused = await browser.postJson('/two-factor-challenge', { code: enrolled.code(-1) });
      assert.equal(refused.statusCode, 422);
      clock.advance(30_000);
      assert.equal(
        (await browser.postJson('/two-factor-challenge', { code: enrolled.code() })).statusCode,
        204,
      );
    });

    test('one step of drift either side is accepted, two are not', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(60_000);
      const browser = await passwordStep(ctx(), user);
      assert.equal(
        (await browser.postJson('/two-factor-challenge', { code: enrolled.code(2) })).statusCode,
        422,
      );
      assert.equal(
        (await browser.postJson('/two-factor-challenge', { code: enrolled.code(-1) })).statusCode,
        204,
      );
    });

    test('recovery codes: each works once, the count goes down, a mail tells the owner', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      assert.equal(enrolled.recoveryCodes.length, 8);
      const [first] = enrolled.recoveryCodes;
      let browser = await passwordStep(ctx(), user);
      const form = await browser.get('/two-factor-challenge?recovery=1');
      assert.match(form.body, /name="recovery_code"/);
      const mails = await countRows(ctx().db, 'mail_outbox');
      // Typed from paper: upper case and spaces forgiven.
      const ok = await browser.post('/two-factor-challenge', { recovery_code: ` ${first!.toUpperCase()} ` });
      assert.equal(ok.statusCode, 302);
      assert.equal(await countRows(ctx().db, 'mail_outbox'), mails + 1);
      assert.deepEqual(await ctx().services.auth.twoFactor.state(user.id), {
        status: 'on',
        recoveryCodesLeft: 7,
      });
      browser = await passwordStep(ctx(), user);
      const again = await browser.postJson('/two-factor-challenge', { recovery_code: first });
      assert.equal(again.statusCode, 422);
      assert.deepEqual(again.json().errors, { recovery_code: [RECOVERY_INVALID] });
    });

    test('challenge failures have their own throttle: 5 a minute, the password is never locked out', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(30_000);
      const browser = await passwordStep(ctx(), user);
      for (let i = 0; i < 5; i++) {
        const wrong = await browser.post('/two-factor-challenge', {
          code: '000000' === enrolled.code() ? '111111' : '000000',
        });
        assert.equal(wrong.statusCode, 422);
      }
      const sixth = await browser.post('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(sixth.statusCode, 429, 'the 6th is refused even with the right code');
      assert.match(sixth.body, THROTTLE);
      assert.ok(Number(sixth.headers['retry-after']) > 0);
      // The password throttle never heard of these failures: the password still works, at once.
      const other = await passwordStep(ctx(), user);
      // ...but the per-user limit holds across pending logins, so a new login cannot try faster.
      const json = await other.postJson('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(json.statusCode, 429);
      assert.match(json.json().message, THROTTLE);
      clock.advance(61_000);
      assert.equal(
        (await other.postJson('/two-factor-challenge', { code: enrolled.code() })).statusCode,
        204,
      );
    });

    test('the pending login expires after 5 minutes', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      const browser = await passwordStep(ctx(), user);
      clock.advance(5 * 60_000 + 1);
      const json = await browser.postJson('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(json.statusCode, 401);
      assert.deepEqual(json.json(), { message: 'Your sign-in has expired. Please log in again.' });
      const page = await browser.post('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(page.statusCode, 302);
      assert.equal(page.headers.location, '/login');
      assert.equal((await browser.get('/dashboard')).statusCode, 302);
    });

    test('an account disabled during the pending login cannot complete it', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(30_000);
      const browser = await passwordStep(ctx(), user);
      await ctx()
        .db.updateTable('users')
        .set({ disabled_at: clock.now() })
        .where('id', '=', user.id)
        .execute();
      const refused = await browser.post('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(refused.statusCode, 302);
      assert.equal(refused.headers.location, '/login');
      assert.equal((await browser.get('/dashboard')).statusCode, 302);
    });

    test('the remember flag given at /login is kept through the challenge', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(30_000);
      const browser = await passwordStep(ctx(), user, { remember: '1' });
      assert.equal(browser.cookies.has('gatehouse_remember'), false);
      await browser.post('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(browser.cookies.has('gatehouse_remember'), true);
    });

    test('SPA JSON flow: {"two_factor": true}, then 204', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(30_000);
      const browser = new Browser(ctx().app);
      await browser.get('/login');
      const login = await browser.postJson('/login', { email: user.email, password: user.password });
      assert.equal(login.statusCode, 200);
      assert.deepEqual(login.json(), { two_factor: true });
      const missing = await browser.postJson('/two-factor-challenge', {});
      assert.equal(missing.statusCode, 422);
      assert.ok(missing.json().errors.code);
      assert.equal(
        (await browser.postJson('/two-factor-challenge', { code: enrolled.code() })).statusCode,
        204,
      );
      assert.equal((await browser.get('/dashboard', { accept: 'application/json' })).statusCode, 200);
    });

    test('POST /api/tokens: code required, wrong code refused, right code issues the token', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(30_000);
      const { app } = ctx();
      const post = (extra: Record<string, unknown>) =>
        app.inject({
          method: 'POST',
          url: '/api/tokens',
          payload: { email: user.email, password: user.password, device_name: 'cli', ...extra },
        });
      const tokens = await countRows(ctx().db, 'personal_access_tokens');
      const missing = await post({});
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json(), {
        message: 'The two factor authentication code is required.',
        errors: { code: ['The two factor authentication code is required.'] },
        two_factor: true,
      });
      const wrong = await post({ code: enrolled.code(3) });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json().errors, { code: [CODE_INVALID] });
      // A wrong password still answers 401 and says nothing about two-factor.
      const badPassword = await post({ password: 'wrong password!', code: enrolled.code() });
      assert.equal(badPassword.statusCode, 401);
      assert.equal(badPassword.json().two_factor, undefined);
      assert.equal(await countRows(ctx().db, 'personal_access_tokens'), tokens);
      const ok = await post({ code: enrolled.code() });
      assert.equal(ok.statusCode, 200);
      assert.ok(ok.json().token);
      const replay = await post({ code: enrolled.code() });
      assert.equal(replay.statusCode, 422);
      const recovery = await post({ recovery_code: enrolled.recoveryCodes[2] });
      assert.equal(recovery.statusCode, 200);
    });

    test('20 concurrent uses of one code, or of one recovery code: exactly one wins', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(30_000);
      const { twoFactor } = ctx().services.auth;
      const full = (await ctx().services.auth.providerOf('web').retrieveById(user.id))!;
      const audit = { ip: '127.0.0.1', now: clock.now(), actorId: user.id };
      // The check itself, without the throttle (which would refuse 15 of 20 before they reach it).
      const race = async (proof: { code: string } | { recoveryCode: string }) =>
        (await Promise.all(Array.from({ length: 20 }, () => twoFactor.verify(full, proof, audit)))).filter(
          Boolean,
        ).length;
      assert.equal(await race({ code: enrolled.code() }), 1);
      assert.equal(await race({ recoveryCode: enrolled.recoveryCodes[0]! }), 1);
      // Different recovery codes at once: each is spent exactly once, none lost to the compare-and-swap.
      const distinct = await Promise.all(
        enrolled.recoveryCodes
          .slice(1, 6)
          .map((recoveryCode) => twoFactor.verify(full, { recoveryCode }, audit)),
      );
      assert.deepEqual(distinct, [true, true, true, true, true]);
      assert.deepEqual(await twoFactor.state(user.id), { status: 'on', recoveryCodesLeft: 2 });
      // Through HTTP, 20 browsers with one code: one logged in, the rest refused.
      clock.advance(61_000);
      // One after another: concurrent password logins would meet the password throttle instead.
      const browsers = [];
      for (let i = 0; i < 20; i++) browsers.push(await passwordStep(ctx(), user));
      const code = enrolled.code();
      const answers = await Promise.all(browsers.map((b) => b.postJson('/two-factor-challenge', { code })));
      assert.equal(answers.filter((a) => a.statusCode === 204).length, 1);
      assert.ok(answers.every((a) => a.statusCode === 204 || a.statusCode === 422 || a.statusCode === 429));
    });
  },
  // The per-IP budget (docs/security.md) is tested below on its own: here, many logins come from one address.
  { overrides: { clock }, env: { IP_AUTH_LIMIT: '0' } },
);

await describeApp(
  'two-factor challenge inside the per-IP auth budget (docs/security.md)',
  (ctx) => {
    test('the challenge spends the budget of the password checks, before any code is checked', async () => {
      const user = await ctx().createUser();
      const enrolled = await enableTwoFactor(ctx(), user);
      clock.advance(30_000);
      const browser = await passwordStep(ctx(), user);
      // 3 a minute here: the password (1) and two wrong codes (2, 3); the 4th check is refused.
      for (const code of ['000000', '999999']) {
        if (code === enrolled.code()) continue;
        assert.equal((await browser.postJson('/two-factor-challenge', { code })).statusCode, 422);
      }
      const refused = await browser.postJson('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(refused.statusCode, 429);
      assert.deepEqual(refused.json(), { message: 'Too Many Attempts.' });
      assert.ok(Number(refused.headers['retry-after']) > 0);
    });
  },
  { overrides: { clock }, env: { IP_AUTH_LIMIT: '3' } },
);
