import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { codeAt } from '../../src/two-factor/totp.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { startSmtpSink } from '../helpers/smtp-sink.ts';
import { type Enrolled, enableTwoFactor, midStep } from '../helpers/two-factor.ts';

const clock = fakeClock(midStep());
const sink = await startSmtpSink();
after(() => sink.close());

type Proof = { code: string } | { recovery_code: string };
type Door = 'web' | 'admin' | 'api';
type Person = Awaited<ReturnType<TestApp['createUser']>>;

/** A six-digit code no step around now accepts. */
function wrongCode(enrolled: Enrolled): string {
  const valid = new Set([-1, 0, 1].map((offset) => codeAt(enrolled.secret, clock.now() + offset * 30_000)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

/** The right password through one door, then `proof` as its second step; the answer to that step. */
async function secondStep(t: TestApp, door: Door, user: Person, proof: Proof) {
  if (door === 'api') {
    return t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      payload: { email: user.email, password: user.password, device_name: 'cli', ...proof },
    });
  }
  const prefix = door === 'admin' ? '/admin' : '';
  const browser = new Browser(t.app);
  await browser.get(`${prefix}/login`);
  const first = await browser.postJson(`${prefix}/login`, { email: user.email, password: user.password });
  assert.deepEqual(first.json(), { two_factor: true }, first.body);
  return browser.postJson(`${prefix}/two-factor-challenge`, proof);
}

const lockoutMails = async (t: TestApp, email: string) =>
  (
    await t.db
      .selectFrom('mail_outbox')
      .select('id')
      .where('kind', '=', 'two-factor-lockout')
      .where('recipient', '=', email)
      .execute()
  ).length;

/**
 * docs/security.md "Consecutive wrong second factors back off": after 10 wrong codes in a row for one
 * account (TOTP or recovery code, any door: the web and admin challenges, POST /api/tokens), its
 * challenges answer 429 for 15 minutes (Retry-After: what is left), and the owner gets one mail saying the
 * password was right and the code was not. The audit: 5 a minute forever was about 2 % a day to guess a
 * code once the password is known, and the owner was never told.
 */
await describeEachDialect(
  'two-factor: consecutive wrong codes',
  (ctx) => {
    test('10 wrong in a row across every door: 429 for 15 minutes on every door, one mail, then open again', async () => {
      const t = ctx();
      t.services.outbox.start();
      after(() => t.services.outbox.stop());
      const user = await t.createUser({ panelAccess: true });
      const enrolled = await enableTwoFactor(t, user);
      clock.advance(30_000);
      const wrong = { code: wrongCode(enrolled) };
      // Five a minute per user is the challenge's own throttle: a minute's pause after each five.
      const tries: Array<[Door, Proof]> = [
        ['web', wrong],
        ['api', wrong],
        ['admin', wrong],
        ['web', { recovery_code: 'aaaaaaaaaa-bbbbbbbbbb' }],
        ['api', { recovery_code: 'aaaaaaaaaa-bbbbbbbbbb' }],
        ['admin', wrong],
        ['web', wrong],
        ['api', wrong],
        ['web', wrong],
        ['admin', wrong],
      ];
      for (const [index, [door, proof]] of tries.entries()) {
        if (index === 5) clock.advance(61_000);
        const answer = await secondStep(t, door, user, proof);
        assert.equal(answer.statusCode, 422, `try ${index + 1} (${door}): ${answer.body}`);
      }
      assert.equal(await lockoutMails(t, user.email), 1, 'the owner is told once');

      // Even the right code is refused now, on every door, with what is left of the 15 minutes.
      clock.advance(61_000);
      for (const door of ['web', 'admin', 'api'] as const) {
        const answer = await secondStep(t, door, user, { code: enrolled.code() });
        assert.equal(answer.statusCode, 429, `${door}: ${answer.body}`);
        assert.equal(answer.headers['retry-after'], String(15 * 60 - 61), door);
      }
      const recovery = await secondStep(t, 'web', user, { recovery_code: enrolled.recoveryCodes[0]! });
      assert.equal(recovery.statusCode, 429, 'a recovery code too');
      assert.equal(await lockoutMails(t, user.email), 1, 'still one mail');
      const mail = await sink.waitForMail((m) => m.envelope.to[0] === user.email && /wrong/i.test(m.subject));
      assert.match(mail.text, /right password/i);
      assert.match(mail.text, /10/);

      // After the 15 minutes the right code signs in, and the streak starts again from nothing.
      clock.advance(15 * 60_000 - 61_000);
      const open = await secondStep(t, 'api', user, { code: enrolled.code() });
      assert.equal(open.statusCode, 200, open.body);
      clock.advance(30_000);
      const once = await secondStep(t, 'web', user, wrong);
      assert.equal(once.statusCode, 422, 'one wrong code after a success is one, not eleven');
    });

    test('a right code before the tenth ends the streak', async () => {
      const t = ctx();
      const user = await t.createUser();
      const enrolled = await enableTwoFactor(t, user);
      clock.advance(30_000);
      const wrong = { code: wrongCode(enrolled) };
      for (let i = 0; i < 9; i++) {
        if (i === 5) clock.advance(61_000);
        assert.equal((await secondStep(t, 'api', user, wrong)).statusCode, 422);
      }
      clock.advance(61_000);
      assert.equal((await secondStep(t, 'api', user, { code: enrolled.code() })).statusCode, 200);
      clock.advance(30_000);
      for (let i = 0; i < 5; i++) assert.equal((await secondStep(t, 'api', user, wrong)).statusCode, 422);
      clock.advance(61_000);
      assert.equal((await secondStep(t, 'api', user, { code: enrolled.code() })).statusCode, 200);
      assert.equal(await lockoutMails(t, user.email), 0);
    });
  },
  { env: sink.env, overrides: { clock } },
);
