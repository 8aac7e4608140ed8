import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { codeAt } from '../../src/two-factor/totp.ts';
import type { TestApp } from '../helpers/app.ts';
import { type ChromiumApp, chromiumSkip, closeChromiumApp, openChromiumApp } from '../helpers/chromium.ts';
import { checkView, eachView, screenshot, withLang } from '../helpers/screenshots.ts';

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

    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/user/two-factor`, lang));
      await checkView(page, 'two-factor-setup', lang, width, { maxTabs: 40 });
    });

    const secret = ((await page.textContent('#secret-key')) ?? '').replace(/\s+/g, '');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.equal(await page.getAttribute('#field-code', 'autocomplete'), 'one-time-code');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/user/two-factor`, 'en'));
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
  });
});
