import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import {
  type ChromiumApp,
  chromiumSkip,
  clickAndLoad,
  closeChromiumApp,
  openChromiumApp,
} from '../helpers/chromium.ts';
import { checkView, eachView, withLang } from '../helpers/screenshots.ts';

/**
 * The OpenID Connect provider's pages for people (docs/guides/oidc-provider.md "Connected apps"), in
 * Chromium, four languages at 1280 and 390 px: axe finds nothing, focus is visible, nothing scrolls
 * sideways, a screenshot of each lands in test/artifacts/. Then a Disconnect through the page.
 */
const LONG_NAME = `Quarterly ${'Reporting '.repeat(6)}Dashboard`;

describe('OpenID Connect pages in Chromium', { skip: chromiumSkip() }, () => {
  let app: ChromiumApp | undefined;
  let t: TestApp;
  let base: string;
  let page: Page;
  let clientId = '';
  let userId = 0;

  before(async () => {
    app = await openChromiumApp({ env: { IP_AUTH_LIMIT: '0' } });
    ({ t, base, page } = app);
    const user = await t.createUser({ name: 'Ada Lovelace' });
    userId = user.id;
    const now = Date.now();
    for (const [name, scopes, used] of [
      ['Photo Printer', ['openid', 'email'], null],
      [LONG_NAME, ['openid', 'profile', 'email', 'offline_access', 'posts:read', 'posts:write'], now],
    ] as const) {
      const created = await t.services.oauth.clients.create(
        {
          name,
          redirectUris: ['https://rp.example/callback'],
          postLogoutRedirectUris: [],
          backchannelLogoutUri: null,
          grantTypes: [],
          scope: 'openid profile email offline_access posts:read posts:write',
          public: false,
          trusted: false,
        },
        { now },
      );
      assert.ok(created.ok);
      clientId = created.client.clientId;
      await t.services.oauth.consents.remember(user.id, created.client.clientId, scopes, { now });
      if (used !== null) await t.services.oauth.consents.used(user.id, created.client.clientId, used);
    }
    await page.goto(withLang(`${base}/login`, 'en'));
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await Promise.all([page.waitForNavigation(), page.click('form[action="/login"] button[type=submit]')]);
    const admin = await t.createUser({ name: 'Grace Hopper', panelAccess: true });
    await page.goto(withLang(`${base}/admin/login`, 'en'));
    await page.fill('#field-email', admin.email);
    await page.fill('#field-password', admin.password);
    await Promise.all([
      page.waitForURL(`${base}/admin`),
      page.click('form[action="/admin/login"] button[type=submit]'),
    ]);
  });

  after(() => closeChromiumApp(app));

  test('account-connected-apps: /profile/tokens with two apps, and the Disconnect box open', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/profile/tokens`, lang));
      await page.locator('#connected-apps').scrollIntoViewIfNeeded();
      await checkView(page, 'account-connected-apps', lang, width, { maxTabs: 120 });
      await page.locator('#connected-apps details.confirm > summary').first().click();
      await checkView(page, 'account-connected-apps-confirm', lang, width, { maxTabs: 120 });
    });
  });

  test('Disconnect through the page: the app leaves the list, a status says so', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/profile/tokens`, 'en'));
    assert.equal(await page.locator('#connected-apps tbody tr').count(), 2);
    await page.locator('#connected-apps details.confirm > summary').first().click();
    await Promise.all([
      page.waitForNavigation(),
      page.locator('#connected-apps details.confirm[open] button[type=submit]').click(),
    ]);
    assert.equal(new URL(page.url()).pathname, '/profile/tokens');
    assert.match((await page.textContent('[role=status]')) ?? '', /was disconnected; its access has ended/);
    assert.equal(await page.locator('#connected-apps tbody tr').count(), 1);
  });

  for (const [name, path] of [
    ['admin-clients', '/admin/clients'],
    ['admin-client-new', '/admin/clients/new'],
  ] as const) {
    test(`${name}: ${path}`, async () => {
      await eachView(page, async (lang, width) => {
        await page.goto(withLang(`${base}${path}`, lang));
        await checkView(page, name, lang, width, { maxTabs: 120 });
      });
    });
  }

  test('admin-user-connected-apps: a user’s page in the panel with the apps they allowed', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/admin/users/${userId}`, lang));
      await page.locator('#connected-apps').scrollIntoViewIfNeeded();
      await checkView(page, 'admin-user-connected-apps', lang, width, { maxTabs: 200 });
    });
  });

  test('admin-client-new-failed and admin-client: a refused form, then a registration and its page', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/admin/clients/new`, lang));
      await page.fill('#field-redirect_uris', 'javascript:alert(1)');
      await clickAndLoad(page, 'form[action="/admin/clients"] button[type=submit]');
      await checkView(page, 'admin-client-new-failed', lang, width, { maxTabs: 120 });
      await page.goto(withLang(`${base}/admin/clients/${clientId}`, lang));
      await page.locator('details.confirm > summary').last().click();
      await checkView(page, 'admin-client', lang, width, { maxTabs: 160 });
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/admin/clients/new`, 'en'));
    await page.fill('#field-name', 'Nextcloud');
    await page.fill('#field-redirect_uris', 'https://cloud.example/apps/user_oidc/code');
    await Promise.all([
      page.waitForNavigation(),
      page.click('form[action="/admin/clients"] button[type=submit]'),
    ]);
    assert.match(new URL(page.url()).pathname, /^\/admin\/clients\/[A-Za-z0-9]+$/);
    assert.ok(((await page.textContent('#client-secret')) ?? '').trim().length >= 40, 'the secret, once');
    await checkView(page, 'admin-client-secret', 'en', 1280, { maxTabs: 160 });
  });
});
