import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { ARTIFACTS } from '../helpers/paths.ts';

/**
 * The web half as a person uses it, in a real Chromium against a listening Gatehouse: register, land on
 * the dashboard, log out, log in with remember-me, lose the session cookie (as when a browser is
 * closed), come back still logged in; a failed login in German. Screenshots go to test/artifacts/.
 */

const PASSWORD = 'tangerine-orbit-42';

describe('web pages in Chromium', { skip: chromiumSkip() }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await createTestApp('sqlite');
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1200, height: 800 }, locale: 'en-US' });
    page = await context.newPage();
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  const cookie = async (name: string) => (await context.cookies(base)).find((c) => c.name === name);

  test('register → dashboard → log out → log in with remember-me → session cookie gone → still logged in', async () => {
    const email = `ada.${Date.now()}@example.com`;
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    assert.equal(new URL(page.url()).pathname, '/register');
    // Fields are found by their labels: the form is usable with assistive technology.
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(`${base}/dashboard`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Dashboard');
    assert.match(
      (await page.getByRole('status').textContent()) ?? '',
      new RegExp(
        `Your account has been created, and we have sent a verification link to ${email.replace(/\./g, '\\.')}`,
      ),
    );
    assert.match((await page.textContent('main')) ?? '', /You're logged in as Ada Lovelace\./);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${base}/`);
    assert.match((await page.getByRole('status').textContent()) ?? '', /You have been logged out/);

    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Log in' }).click();
    await page.waitForURL(`${base}/login`);
    await page.screenshot({ path: join(ARTIFACTS, 'login.png'), fullPage: true });
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Remember me').check();
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${base}/dashboard`);

    const session = await cookie('gatehouse_session');
    const remember = await cookie('gatehouse_remember');
    assert.ok(session && remember);
    assert.equal(session.expires, -1, 'the session cookie ends with the browser');
    assert.ok(remember.expires * 1000 > Date.now() + 29 * 24 * 3600 * 1000, 'remembered for 30 days');
    for (const c of [session, remember]) {
      assert.equal(c.httpOnly, true);
      assert.equal(c.sameSite, 'Lax');
      assert.equal(c.path, '/');
    }

    // What a browser restart does to a session cookie: it is gone, the remember cookie stays.
    await context.clearCookies({ name: 'gatehouse_session' });
    assert.equal(await cookie('gatehouse_session'), undefined);
    const reload = await page.reload();
    assert.equal(reload?.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/dashboard');
    assert.match((await page.textContent('main')) ?? '', /Ada Lovelace/);
    const restored = await cookie('gatehouse_session');
    assert.ok(restored && restored.value !== session.value, 'a fresh session id');
    assert.notEqual(
      (await cookie('gatehouse_remember'))?.value,
      remember.value,
      'the remember cookie rotated',
    );

    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Profile' }).click();
    await page.waitForURL(/\/(profile|email\/verify)$/);
    assert.equal(new URL(page.url()).pathname, '/email/verify', 'an unverified address cannot open /profile');
  });

  test('a failed login with ?lang=de shows the German message beside the e-mail field', async () => {
    const user = await t.createUser({ name: 'Grete' });
    const german = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const tab = await german.newPage();
      await tab.goto(`${base}/login?lang=de`);
      assert.equal(await tab.getAttribute('html', 'lang'), 'de');
      await tab.getByLabel('E-Mail').fill(user.email);
      await tab.getByLabel('Passwort').fill('falsches-passwort');
      const [response] = await Promise.all([
        tab.waitForResponse((r) => r.url() === `${base}/login` && r.request().method() === 'POST'),
        tab.getByRole('button', { name: 'Anmelden', exact: true }).click(),
      ]);
      assert.equal(response.status(), 422);
      await tab.waitForLoadState();
      assert.equal(new URL(tab.url()).pathname, '/login', 'no redirect');
      const error = tab.locator('#field-email-error');
      assert.equal(
        await error.textContent(),
        'Diese Kombination aus Zugangsdaten wurde nicht in unserer Datenbank gefunden.',
      );
      assert.equal(await tab.getByLabel('E-Mail').getAttribute('aria-invalid'), 'true');
      assert.equal(await tab.getByLabel('E-Mail').inputValue(), user.email, 'the e-mail is kept');
      assert.equal(await tab.getByLabel('Passwort').inputValue(), '', 'the password is not');
      await tab.screenshot({ path: join(ARTIFACTS, 'login-failed-de.png'), fullPage: true });

      await tab.getByLabel('Passwort').fill(user.password);
      await tab.getByRole('button', { name: 'Anmelden', exact: true }).click();
      await tab.waitForURL(`${base}/dashboard`);
      assert.equal(await tab.getByRole('heading', { level: 1 }).textContent(), 'Übersicht');
      await tab.screenshot({ path: join(ARTIFACTS, 'dashboard-de.png'), fullPage: true });
    } finally {
      await german.close();
    }
  });
});
