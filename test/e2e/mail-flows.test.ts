import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { type ServerProcess, startServer } from '../helpers/process.ts';
import { extractLinks, type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';

/**
 * The mail flows as a user lives them, in a real Chromium against `npm start`'s server (whose outbox
 * worker delivers to a loopback SMTP sink): register → open the mailed verification link → /profile;
 * log out → forgot password → open the mailed reset link → new password → log in.
 */
const skip = chromiumSkip();
const PASSWORD = 'juniper-canyon-relay-5';
const NEW_PASSWORD = 'marble-comet-orchard-8';

describe('mail flows in real Chromium', { skip }, () => {
  let sink: SmtpSink;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    sink = await startSmtpSink();
    server = await startServer({ env: { ...sink.env, APP_NAME: 'Gatehouse E2E' } });
    browser = await launchChromium();
    page = await (await browser.newContext({ locale: 'en-US' })).newPage();
  });

  after(async () => {
    await browser?.close();
    const exit = await server?.stop();
    await sink?.close();
    assert.equal(exit?.code, 0, 'the server shuts down cleanly, outbox worker included');
  });

  const email = `e2e-${Date.now()}@example.com`;
  const path = () => new URL(page.url()).pathname + new URL(page.url()).search;
  const linkIn = async (pattern: RegExp, subject: RegExp) => {
    const mail = await sink.waitForMail((m) => m.envelope.to[0] === email && subject.test(m.subject), 15_000);
    const link = extractLinks(mail).find((l) => pattern.test(l));
    assert.ok(link, `a link matching ${pattern} in "${mail.subject}"`);
    assert.ok(link.startsWith(`${server.url}/`), 'links are built from APP_URL');
    return link;
  };

  test('register → mailed verification link → /profile opens', async () => {
    await page.goto(`${server.url}/register`);
    await page.fill('#field-name', 'Edith Clarke');
    await page.fill('#field-email', email);
    await page.fill('#field-password', PASSWORD);
    await page.fill('#field-password_confirmation', PASSWORD);
    await Promise.all([
      page.waitForURL(/\/dashboard$/),
      page.click('form[action="/register"] button[type=submit]'),
    ]);

    await page.goto(`${server.url}/profile`);
    assert.equal(path(), '/email/verify', 'unverified users are sent to the notice');
    assert.ok(await page.isVisible('form[action="/email/verification-notification"] button'));

    const link = await linkIn(
      /\/email\/verify\/\d+\/[0-9a-f]{40}\?expires=\d+&signature=[0-9a-f]{64}$/,
      /Verify Email Address/,
    );
    await page.goto(link);
    assert.equal(path(), '/dashboard?verified=1');
    assert.match((await page.textContent('main')) ?? '', /Your email address has been verified\./);

    const profile = await page.goto(`${server.url}/profile`);
    assert.equal(profile?.status(), 200);
    assert.equal(path(), '/profile');
    assert.match((await page.textContent('main')) ?? '', new RegExp(email.replace(/[.]/g, '\\.')));
  });

  test('forgot password → mailed reset link → new password → log in', async () => {
    await Promise.all([page.waitForURL(`${server.url}/`), page.click('form[action="/logout"] button')]);
    await page.goto(`${server.url}/login`);
    await page.click('a[href="/forgot-password"]');
    await page.fill('#field-email', email);
    await Promise.all([
      page.waitForURL(/\/forgot-password$/),
      page.click('form[action="/forgot-password"] button'),
    ]);
    assert.match(
      (await page.textContent('[role=status]')) ?? '',
      /We have emailed your password reset link\./,
    );

    const link = await linkIn(/\/reset-password\/[A-Za-z0-9_-]{43}\?email=/, /Reset Password Notification/);
    const response = await page.goto(link);
    assert.equal(response?.headers()['referrer-policy'], 'no-referrer');
    assert.equal(await page.inputValue('#field-email'), email);
    await page.fill('#field-password', NEW_PASSWORD);
    await page.fill('#field-password_confirmation', NEW_PASSWORD);
    await Promise.all([
      page.waitForURL(/\/login$/),
      page.click('form[action="/reset-password"] button[type=submit]'),
    ]);
    assert.match((await page.textContent('[role=status]')) ?? '', /Your password has been reset\./);

    await page.fill('#field-email', email);
    await page.fill('#field-password', NEW_PASSWORD);
    await Promise.all([
      page.waitForURL(/\/dashboard$/),
      page.click('form[action="/login"] button[type=submit]'),
    ]);
    await linkIn(/\/forgot-password$/, /Your password was changed/);
    const logs = [...server.stdout, ...server.stderr].join('\n');
    assert.ok(!logs.includes(new URL(link).pathname.split('/').pop()!), 'the reset token is in no log line');
  });
});
