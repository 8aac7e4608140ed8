import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { startSmtpSink } from '../helpers/smtp-sink.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';

const clock = fakeClock(midStep());
const sink = await startSmtpSink();
after(() => sink.close());

/** A password login through the form, then `recoveryCode` on the challenge page; the page it lands on. */
async function recoveryLogin(t: TestApp, user: { email: string; password: string }, recoveryCode: string) {
  const browser = new Browser(t.app);
  await browser.get('/login');
  const step = await browser.post('/login', { email: user.email, password: user.password });
  assert.equal(step.headers.location, '/two-factor-challenge', step.body);
  await browser.get('/two-factor-challenge?recovery=1');
  const done = await browser.post('/two-factor-challenge', { recovery_code: recoveryCode });
  assert.equal(done.statusCode, 302, done.body);
  return browser.get(done.headers.location as string);
}

/**
 * docs/security.md "Consecutive wrong second factors back off": after a recovery-code login, the next
 * page says how many codes are left, and so does the mail to the owner (in the right number).
 */
await describeEachDialect(
  'two-factor: codes left after a recovery-code login',
  (ctx) => {
    test('the next page and the mail say how many recovery codes are left', async () => {
      const t = ctx();
      t.services.outbox.start();
      after(() => t.services.outbox.stop());
      const user = await t.createUser();
      const enrolled = await enableTwoFactor(t, user);
      const full = (await t.services.auth.providerOf('web').retrieveById(user.id))!;
      const audit = { ip: '127.0.0.1', now: clock.now(), actorId: user.id };
      for (const recoveryCode of enrolled.recoveryCodes.slice(0, 5))
        assert.equal(await t.services.auth.twoFactor.verify(full, { recoveryCode }, audit), true);

      const page = await recoveryLogin(t, user, enrolled.recoveryCodes[5]!);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /2 recovery codes left\./);

      const last = await recoveryLogin(t, user, enrolled.recoveryCodes[6]!);
      assert.match(last.body, /1 recovery code left\./);
      const mails = await sink.waitForMails(
        7,
        (m) => m.envelope.to[0] === user.email && m.subject === 'A recovery code was used to sign in',
      );
      assert.ok(
        mails.some((m) => /You have 1 recovery code left\./.test(m.text)),
        'one code, in the singular',
      );
    });
  },
  { env: sink.env, overrides: { clock } },
);
