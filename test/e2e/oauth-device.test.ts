import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { checkView, eachView, withLang } from '../helpers/screenshots.ts';
import { freePort } from '../helpers/smtp-sink.ts';

/**
 * The device flow's pages (docs/guides/oidc-provider.md "Device flow") in Chromium, four languages at
 * 1280 and 390 px: the code form, a wrong code, the confirmation and the done page — axe finds
 * nothing, focus is visible, nothing scrolls sideways — each time a new code, typed, confirmed and
 * allowed through the pages.
 */
describe('device flow pages in Chromium', { skip: chromiumSkip() }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let clientId = '';
  let userId = 0;

  before(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    t = await createTestApp('sqlite', { env: { APP_URL: base, IP_AUTH_LIMIT: '0' } });
    await t.app.listen({ host: '127.0.0.1', port });
    const created = await t.services.oauth.clients.create(
      {
        name: 'Living-room TV',
        redirectUris: [],
        postLogoutRedirectUris: [],
        backchannelLogoutUri: null,
        grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'],
        scope: 'openid profile',
        public: true,
        trusted: false,
      },
      { now: Date.now() },
    );
    assert.ok(created.ok);
    clientId = created.client.clientId;
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    const user = await t.createUser({ name: 'Ada Lovelace' });
    userId = user.id;
    await page.goto(withLang(`${base}/login`, 'en'));
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button[type=submit]')]);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('code, wrong code, confirmation and done pages: axe, focus, no sideways scroll', async () => {
    await eachView(page, async (lang, width) => {
      const started = await t.app.inject({
        method: 'POST',
        url: '/oauth/device/auth',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `client_id=${clientId}&scope=openid%20profile`,
      });
      const userCode = String(started.json().user_code);
      // Eight flows of three submissions each go past the code budget (10 a minute); it is not tested here.
      for (const key of [`device-code:user:${userId}`, 'device-code:ip:127.0.0.1'])
        await t.services.limiter.clear(key);
      await page.goto(withLang(`${base}/device`, lang));
      await checkView(page, 'device-code', lang, width);
      await page.fill('#field-user_code', 'BCDF-GHJK');
      await Promise.all([page.waitForNavigation(), page.click('form button[type=submit]')]);
      assert.equal(await page.getAttribute('#field-user_code', 'aria-invalid'), 'true');
      await checkView(page, 'device-code-error', lang, width);
      await page.fill('#field-user_code', userCode);
      await Promise.all([page.waitForNavigation(), page.click('form button[type=submit]')]);
      assert.ok((await page.textContent('.device-code'))?.includes(userCode));
      await checkView(page, 'device-confirm', lang, width);
      await Promise.all([page.waitForNavigation(), page.click('button[name="confirm"]')]);
      // The consent is asked the first time only: it is remembered for this person and client.
      const allow = page.locator('button[name="decision"][value="allow"]');
      await page.waitForSelector('button[name="decision"], .auth-card h1');
      if ((await allow.count()) > 0) await Promise.all([page.waitForURL(/\/device/), allow.click()]);
      await page.waitForSelector('.auth-card:not(.consent) h1');
      assert.equal(await page.locator('input, button[name="decision"]').count(), 0, 'the done page');
      await checkView(page, 'device-done', lang, width);
    });
  });
});
