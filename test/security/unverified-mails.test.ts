import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { sendJson, signedInAdmin, signedInBrowser } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { type ReceivedMail, startSmtpSink } from '../helpers/smtp-sink.ts';

const sink = await startSmtpSink();
after(() => sink.close());
const clock = fakeClock(Date.UTC(2026, 7, 1, 9));
let counter = 0;

/** A name an attacker would like us to deliver: a marker that cannot occur in a mail by chance. */
function chosenName(): string {
  counter++;
  return `Visit Cheapdeals${counter}x Now`;
}

const address = (tag: string) => `${tag}.${Date.now()}.${counter++}@example.com`;

function ready(t: TestApp): TestApp {
  t.services.outbox.start();
  return t;
}

/** Asserts that no part of the mail (headers, text, HTML, raw encoded form) carries `name`. */
function assertNameless(mail: ReceivedMail, name: string, what: string) {
  const marker = name.split(' ')[1]!; // the distinctive word survives any header encoding or wrapping
  for (const [part, value] of [
    ['To header', mail.to],
    ['text', mail.text],
    ['html', mail.html],
    ['raw', mail.raw],
  ] as const) {
    assert.ok(!value.includes(marker), `${what}: the ${part} carries the chosen name`);
  }
}

const mailTo = (email: string, kind: RegExp) =>
  sink.waitForMail((m) => m.envelope.to[0] === email && kind.test(m.subject));

/** docs/security.md: "Mails to an address that is not verified yet do not contain the user-chosen name." */
await describeEachDialect(
  'mails to unverified addresses',
  (ctx) => {
    test('unverified mails: the registration verification mail carries no chosen name', async () => {
      const t = ready(ctx());
      const name = chosenName();
      const email = address('victim');
      const browser = new Browser(t.app);
      await browser.get('/register');
      const response = await browser.postJson('/register', {
        name,
        email,
        password: 'tangerine-orbit-42',
        password_confirmation: 'tangerine-orbit-42',
      });
      assert.equal(response.statusCode, 204, response.body);
      assertNameless(await mailTo(email, /Verify/), name, 'verification mail');
    });

    test('unverified mails: a reset mail to an unverified account has no name; to a verified one it greets by name', async () => {
      const t = ready(ctx());
      const unverified = await t.createUser({
        name: chosenName(),
        email: address('unverified'),
        verified: false,
      });
      const verified = await t.createUser({ name: chosenName(), email: address('verified') });
      for (const user of [unverified, verified]) {
        const browser = new Browser(t.app);
        await browser.get('/forgot-password');
        await browser.post('/forgot-password', { email: user.email });
      }
      assertNameless(await mailTo(unverified.email, /Reset/), unverified.name, 'reset mail (unverified)');
      const named = await mailTo(verified.email, /Reset/);
      assert.ok(named.text.includes(verified.name), 'a verified owner is still greeted by name');
    });

    test('unverified mails: the e-mail change link to the new address carries no name', async () => {
      const t = ready(ctx());
      const user = await t.createUser({ name: chosenName(), email: address('changer') });
      const { browser } = await signedInBrowser(t, { user });
      const target = address('new-address');
      const response = await sendJson(browser, 'PUT', '/user/profile-information', {
        name: user.name,
        email: target,
      });
      assert.ok(response.statusCode < 300, response.body);
      assertNameless(await mailTo(target, /./), user.name, 'e-mail change link');
    });

    test('unverified mails: an invitation carries neither the name the admin typed nor the admin’s', async () => {
      const t = ready(ctx());
      const { browser } = await signedInAdmin(t, chosenName());
      const name = chosenName();
      const email = address('invited');
      const response = await sendJson(browser, 'POST', '/admin/users', { name, email });
      assert.equal(response.statusCode, 201, response.body);
      assertNameless(await mailTo(email, /./), name, 'invitation');
    });

    test('unverified mails: a password-changed notice to an unverified address has no name', async () => {
      const t = ready(ctx());
      const user = await t.createUser({ name: chosenName(), email: address('changing'), verified: false });
      const { browser } = await signedInBrowser(t, { user });
      const response = await sendJson(browser, 'PUT', '/user/password', {
        current_password: user.password,
        password: 'violet-harbour-lantern-7',
        password_confirmation: 'violet-harbour-lantern-7',
      });
      assert.equal(response.statusCode, 204, response.body);
      assertNameless(await mailTo(user.email, /./), user.name, 'password-changed notice');
    });
  },
  { env: sink.env, overrides: { clock } },
);
