import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { ARTIFACTS, checkView, eachView, screenshot, withLang } from '../helpers/screenshots.ts';

/** A free TCP port: WebAuthn needs APP_URL to be the very origin the browser is on, port included. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Passkeys as a person meets them, in Chromium with the DevTools virtual authenticator (CTAP2, an
 * internal platform authenticator with resident keys and user verification, as a laptop's fingerprint
 * reader): add one from the account page (behind the password confirmation), log out, sign in with it,
 * and the account page then shows it as used. The login page and the account section in four languages
 * at 1280 and 390 px, accessible, photographed.
 *
 * WebAuthn needs a secure context and an RP id that is a domain: the app runs as http://localhost:PORT
 * (localhost counts as secure), with APP_URL set to exactly that.
 */
describe('passkeys in Chromium (virtual authenticator)', { skip: chromiumSkip() }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;

  before(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    t = await createTestApp('sqlite', { env: { APP_URL: base, IP_AUTH_LIMIT: '0' } });
    await t.app.listen({ port, host: 'localhost' });
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  const path = () => new URL(page.url()).pathname;
  const submit = (action: string) =>
    Promise.all([page.waitForNavigation(), page.click(`form[action="${action}"] button[type=submit]`)]);
  /** The passkeys section alone (the whole account page is long): test/artifacts/<name>-section-<width>.png. */
  const sectionShot = (name: string) =>
    page
      .locator('#passkeys')
      .screenshot({ path: join(ARTIFACTS, `${name}-section-${page.viewportSize()?.width ?? 0}.png`) });
  const passkeyRows = () => page.locator('#passkeys table.passkeys tbody tr');

  test('add a passkey on the account page, log out, sign in with it; the page shows it as used', async () => {
    const user = await t.createUser({ name: 'Ada Lovelace' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/login`, 'en'));
    assert.equal(await page.getAttribute('#field-email', 'autocomplete'), 'username webauthn');
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await submit('/login');
    assert.equal(path(), '/dashboard');

    await page.goto(`${base}/profile/security`);
    assert.equal(
      await page.isVisible('form[data-passkey-register] button[type=submit]'),
      true,
      'revealed by the script',
    );
    assert.match((await page.textContent('#passkeys')) ?? '', /You have no passkeys yet/);
    await screenshot(page, 'passkeys-profile-empty');
    await sectionShot('passkeys-empty');

    // No password confirmation yet: the script's options request gets 423, and the form then goes the
    // way of every confirmed action — to the confirmation page and back.
    await page.fill('#field-passkey-name', 'This laptop');
    await submit('/user/passkeys');
    assert.equal(path(), '/user/confirm-password');
    await page.fill('#field-password', user.password);
    await submit('/user/confirm-password');
    assert.equal(path(), '/profile/security', 'back to the page the form was on');

    await page.fill('#field-passkey-name', 'This laptop');
    await submit('/user/passkeys');
    assert.equal(path(), '/profile', (await page.textContent('#passkeys')) ?? '');
    assert.match((await page.textContent('[role=status]')) ?? '', /Passkey added\./);
    assert.equal(await passkeyRows().count(), 1);
    assert.match((await passkeyRows().first().textContent()) ?? '', /This laptop[\s\S]*Never/);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0]!.isResidentCredential, true, 'a discoverable credential');
    assert.equal(credentials[0]!.rpId, 'localhost');

    // Adding the same authenticator again is refused by the browser (excludeCredentials).
    await page.fill('#field-passkey-name', 'Again');
    await page.click('form[action="/user/passkeys"] button[type=submit]');
    await page.waitForSelector('#passkey-add-error:not([hidden])');
    assert.match((await page.textContent('#passkey-add-error')) ?? '', /already holds a passkey/);
    await screenshot(page, 'passkeys-profile-exists-error');
    await sectionShot('passkeys-exists-error');

    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/profile/security`, lang));
      await page.locator('#passkeys').scrollIntoViewIfNeeded();
      await checkView(page, 'passkeys-profile', lang, width, { maxTabs: 120 });
      if (lang === 'en' || lang === 'fr') await sectionShot(`passkeys-${lang}`);
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/profile/security`, 'en'));
    await page.click('details.passkey-rename summary');
    await page.click('#passkeys details.confirm summary');
    await page.locator('#passkeys').scrollIntoViewIfNeeded();
    await screenshot(page, 'passkeys-profile-rename-delete-open');
    await sectionShot('passkeys-rename-delete-open');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(withLang(`${base}/profile#passkeys`, 'en'));
    await page.click('details.passkey-rename summary');
    await screenshot(page, 'passkeys-profile-rename-open');
    await sectionShot('passkeys-rename-open');

    // Rename without a script: the form posts with _method=PUT.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.fill('details.passkey-rename input[name=name]', 'Ada’s laptop');
    await submit(`/user/passkeys/${await passkeyId()}`);
    assert.match((await page.textContent('#passkeys')) ?? '', /Ada’s laptop/);

    await submit('/logout');
    assert.equal(path(), '/');
    // The login page offers the passkey twice: in the e-mail field's autofill (conditional UI, asked
    // for as the page loads) and with the button. The virtual authenticator answers the autofill
    // request at once when it simulates the user's touch, so that is switched off while the page is
    // looked at, and the button is what signs in.
    const presence = (enabled: boolean) =>
      cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });
    await presence(false);
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/login`, lang));
      await page.waitForSelector('[data-passkey-login]:not([hidden])');
      await checkView(page, 'passkeys-login', lang, width);
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/login`, 'en'));
    await page.waitForSelector('[data-passkey-login]:not([hidden])');
    await presence(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(path(), '/login', 'the waiting autofill request did not answer by itself');
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      page.click('form[action="/passkeys/login"] button[type=submit]'),
    ]);
    assert.equal(path(), '/dashboard', 'signed in with the button, without a password');

    // Conditional UI: with the touch simulated, the autofill request made as the page loads signs in.
    await submit('/logout');
    await Promise.all([page.waitForURL(`${base}/dashboard`), page.goto(`${base}/login`)]);
    assert.equal(path(), '/dashboard', 'signed in through the autofill request');

    await page.goto(`${base}/profile#passkeys`);
    const row = (await passkeyRows().first().textContent()) ?? '';
    assert.doesNotMatch(row, /Never/, 'last used is set');
    assert.match(
      row,
      /\d{4}[\s\S]*(now|minute ago|minutes ago)/,
      'added (a local date) and last used (relative)',
    );
    assert.doesNotMatch(row, /UTC/, "the script shows times in the browser's time zone");
    await page.locator('#passkeys').scrollIntoViewIfNeeded();
    await screenshot(page, 'passkeys-profile-used');
    await sectionShot('passkeys-used');
    const list = await t.services.passkeys.list(user.id);
    assert.ok(list[0]!.last_used_at !== null);
  });

  async function passkeyId(): Promise<string> {
    const action = await page.getAttribute('details.passkey-rename form', 'action');
    return action!.split('/').pop()!;
  }
});
