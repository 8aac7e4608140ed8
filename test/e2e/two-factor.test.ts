import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { codeAt } from '../../src/two-factor/totp.ts';
import type { TestApp } from '../helpers/app.ts';
import { type ChromiumApp, chromiumSkip, closeChromiumApp, openChromiumApp } from '../helpers/chromium.ts';
import {
  ARTIFACTS,
  checkView,
  eachView,
  screenshot,
  TAKE_SCREENSHOTS,
  withLang,
} from '../helpers/screenshots.ts';

/**
 * Two-factor as a person meets it, in Chromium: enrol from the account page (the secret read off the
 * page, as someone typing it into an app would), log out, log in through the challenge. The setup and
 * challenge pages in four languages at 1280 and 390 px, accessible, each photographed.
 */
describe('two-factor authentication in Chromium', { skip: chromiumSkip() }, () => {
  let t: TestApp;
  let base: string;
  let page: Page;
  let app: ChromiumApp | undefined;
  before(async () => {
    app = await openChromiumApp({ env: { IP_AUTH_LIMIT: '0' } });
    ({ t, base, page } = app);
  });
  after(() => closeChromiumApp(app));

  const submit = (action: string) =>
    Promise.all([page.waitForNavigation(), page.click(`form[action="${action}"] button[type=submit]`)]);

  test('enrol, log out, log in with a code', async () => {
    const user = await t.createUser({ name: 'Ada Lovelace' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/login`, 'en'));
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await submit('/login');
    assert.equal(new URL(page.url()).pathname, '/dashboard');

    await page.goto(`${base}/profile/security`);
    await screenshot(page, 'two-factor-profile-off');
    await Promise.all([page.waitForNavigation(), page.click('#two-factor a.button')]);
    // Behind a password confirmation, then back.
    assert.equal(new URL(page.url()).pathname, '/user/confirm-password');
    await page.fill('#field-password', user.password);
    await submit('/user/confirm-password');
    assert.equal(new URL(page.url()).pathname, '/user/two-factor');
    await submit('/user/two-factor-authentication');
    assert.equal(new URL(page.url()).pathname, '/user/two-factor');
    assert.equal(await page.locator('.qr-code svg').count(), 1);
    // The QR code is what a person needs first: the page opens at the top, nothing focused below it.
    const opened = await page.evaluate(() => {
      const g = globalThis as unknown as {
        scrollY: number;
        innerHeight: number;
        document: {
          activeElement: { tagName: string } | null;
          querySelector(s: string): { getBoundingClientRect(): { bottom: number } };
        };
      };
      return {
        scrollY: g.scrollY,
        focused: g.document.activeElement?.tagName,
        qrBottom: g.document.querySelector('.qr-code').getBoundingClientRect().bottom,
        height: g.innerHeight,
      };
    });
    assert.equal(opened.scrollY, 0);
    assert.equal(opened.focused, 'BODY');
    assert.ok(
      opened.qrBottom <= opened.height,
      `the QR code is in view (${opened.qrBottom} > ${opened.height})`,
    );
    assert.equal(await page.isVisible('button[data-copy="secret-key"]'), true, 'a copy button for the key');
    assert.equal(await page.isVisible('a[href^="otpauth:"]'), false, 'no app link on a desktop');

    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/user/two-factor`, lang));
      await checkView(page, 'two-factor-setup', lang, width, { maxTabs: 40 });
    });

    const secret = ((await page.textContent('#secret-key')) ?? '').replace(/\s+/g, '');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.equal(await page.getAttribute('#field-code', 'autocomplete'), 'one-time-code');

    // On a phone (touch screen) the key opens the authenticator app itself.
    const phone = await app!.browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    const phonePage = await phone.newPage();
    await phonePage.goto(withLang(`${base}/user/two-factor`, 'en'));
    const appLink = phonePage.locator('a[href^="otpauth:"]');
    assert.equal(await appLink.isVisible(), true, 'the app link shows on a phone');
    assert.match(
      (await appLink.getAttribute('href')) ?? '',
      new RegExp(`^otpauth://totp/.*secret=${secret}`),
    );
    // A full-page capture drops the touch emulation, so the first step is photographed as it shows.
    if (TAKE_SCREENSHOTS) {
      await phonePage
        .locator('.setup-steps > li')
        .first()
        .screenshot({ path: join(ARTIFACTS, 'two-factor-setup-phone-step-en-390.png') });
    }
    await phone.close();

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/user/two-factor`, 'en'));
    // A right code alone does not turn it on: the recovery codes come first.
    await page.fill('#field-code', codeAt(secret, Date.now()));
    await submit('/user/confirmed-two-factor-authentication');
    assert.match((await page.textContent('#saved-codes-error')) ?? '', /Save your recovery codes first/);
    await checkView(page, 'two-factor-setup-unsaved', 'en', 1280, { maxTabs: 40 });
    const codes = await page.locator('.recovery-codes li').allTextContents();
    assert.equal(codes.length, 8);
    await page.check('input[name=saved_codes]');
    await page.fill('#field-code', codeAt(secret, Date.now()));
    await submit('/user/confirmed-two-factor-authentication');
    assert.match((await page.textContent('[role=status]')) ?? '', /now enabled/);
    await checkView(page, 'two-factor-manage', 'en', 1280, { maxTabs: 40 });
    assert.equal(await page.locator('.recovery-codes li').count(), 8);
    assert.equal(await page.isVisible('button[data-copy]'), true, 'the copy button works with the script');
    // Turning off asks first (a disclosure, no script needed).
    await page.click('details.confirm summary');
    await screenshot(page, 'two-factor-manage-turn-off');

    await submit('/logout');
    await page.goto(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await submit('/login');
    assert.equal(new URL(page.url()).pathname, '/two-factor-challenge');

    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/two-factor-challenge`, lang));
      await checkView(page, 'two-factor-challenge', lang, width);
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/two-factor-challenge?recovery=1`, 'en'));
    await checkView(page, 'two-factor-challenge-recovery', 'en', 1280);

    await page.goto(withLang(`${base}/two-factor-challenge`, 'en'));
    assert.equal(await page.getAttribute('#field-code', 'inputmode'), 'numeric');
    await page.fill('#field-code', '000000');
    await submit('/two-factor-challenge');
    await screenshot(page, 'two-factor-challenge-wrong');
    assert.match((await page.textContent('#field-code-error')) ?? '', /invalid/);
    // The confirmation spent this step's code: the next step's (one step of drift) is new.
    await page.fill('#field-code', codeAt(secret, Date.now() + 30_000));
    await submit('/two-factor-challenge');
    assert.equal(new URL(page.url()).pathname, '/dashboard');

    // With a recovery code instead: the next page says how many are left.
    await submit('/logout');
    await page.goto(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await submit('/login');
    await page.goto(withLang(`${base}/two-factor-challenge?recovery=1`, 'en'));
    await page.fill('#field-recovery_code', codes[0]!.trim());
    await submit('/two-factor-challenge');
    assert.match((await page.textContent('[role=status]')) ?? '', /7 recovery codes left/);
    await screenshot(page, 'two-factor-recovery-used');
  });
});
