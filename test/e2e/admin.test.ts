import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { Browser as InjectBrowser } from '../helpers/browser-session.ts';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { runGatehouse } from '../helpers/cli.ts';
import { ARTIFACTS } from '../helpers/paths.ts';

/**
 * The panel as a person uses it, in a real Chromium: an admin made by `gatehouse make:admin` (the
 * real CLI, spawned) signs in, finds a user, revokes one of their tokens, disables them, and finds
 * both actions in the audit log. Screenshots of each step land in test/artifacts/.
 */

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0';
const ADMIN = { name: 'Grace Hopper', email: 'grace@example.com', password: 'cobol compiler 1959' };

function makeAdmin(databaseUrl: string, storage: string) {
  return runGatehouse(
    ['make:admin', '--name', ADMIN.name, '--email', ADMIN.email, '--password', ADMIN.password],
    {
      DATABASE_URL: databaseUrl,
      APP_KEY: TEST_APP_KEY,
      APP_URL: 'http://gatehouse.test',
      STORAGE_PATH: storage,
    },
    storage,
  );
}

const skip = chromiumSkip();

describe('administration panel in real Chromium', { skip }, () => {
  let folder: string;
  let gatehouse: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let target: Awaited<ReturnType<TestApp['createUser']>>;
  let deployToken: string;
  let laptopToken: string;

  const shot = (name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `admin-${name}.png`), fullPage: true });
  const apiStatus = async (token: string) =>
    (await gatehouse.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } }))
      .statusCode;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-admin-e2e-'));
    const databaseUrl = `sqlite:${join(folder, 'database.sqlite')}`;
    const made = await makeAdmin(databaseUrl, folder);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(
      made.stdout,
      `Success! ${ADMIN.email} may now log in at http://gatehouse.test/admin/login\n`,
    );

    gatehouse = await createTestApp('sqlite', { databaseUrl });
    const names = [
      'Ada Lovelace',
      'Alan Turing',
      'Barbara Liskov',
      'Edsger Dijkstra',
      'Frances Allen',
      'Ken Thompson',
    ];
    for (const name of names) {
      await gatehouse.createUser({ name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com` });
    }
    await gatehouse.createUser({ name: 'Margaret Hamilton', email: 'margaret@example.com', verified: false });
    target = await gatehouse.createUser({ name: 'Linus Torvalds', email: 'linus@example.com' });
    deployToken = await gatehouse.issueToken(target.email, target.password, {
      device_name: 'ci-deploy',
      abilities: ['posts:read', 'posts:write'],
    });
    laptopToken = await gatehouse.issueToken(target.email, target.password, { device_name: 'laptop' });
    assert.equal(await apiStatus(laptopToken), 200);
    // A web session from Firefox, and a couple of failed sign-ins for the overview.
    const firefox = new InjectBrowser(gatehouse.app, { 'user-agent': FIREFOX });
    await firefox.get('/login');
    assert.equal(
      (await firefox.post('/login', { email: target.email, password: target.password })).statusCode,
      302,
    );
    const stranger = new InjectBrowser(gatehouse.app);
    await stranger.get('/login');
    await stranger.post('/login', { email: 'ada@example.com', password: 'not her password' });
    await stranger.post('/login', { email: 'nobody@example.com', password: 'guessing again' });

    const address = await gatehouse.app.listen({ host: '127.0.0.1', port: 0 });
    base = address;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, locale: 'en-US' });
    page = await context.newPage();
  });

  after(async () => {
    await browser?.close();
    await gatehouse?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  test('sign in, find a user, revoke a token, disable the user, read both in the audit log', async () => {
    await page.goto(`${base}/admin/users`);
    assert.equal(new URL(page.url()).pathname, '/admin/login', 'a guest is sent to the panel login');
    await shot('1-login');
    await page.fill('input[name=email]', ADMIN.email);
    await page.fill('input[name=password]', ADMIN.password);
    await page.click('button[type=submit]');
    assert.equal(new URL(page.url()).pathname, '/admin/users', 'back to the page asked for');

    await page.click('.admin-nav >> text=Overview');
    assert.equal(await page.textContent('h1'), 'Overview');
    await shot('2-overview');

    await page.click('.admin-nav >> text=Users');
    await page.fill('input[name=q]', 'linus');
    await page.click('.toolbar button[type=submit]');
    const rows = page.locator('table.data tbody tr');
    assert.equal(await rows.count(), 1);
    await shot('3-users-search');
    await rows.first().locator('a.strong').click();
    assert.equal(await page.textContent('h1'), 'Linus Torvalds');
    await shot('4-user');

    // Revoke the ci-deploy token.
    await page
      .locator('#tokens tr', { hasText: 'ci-deploy' })
      .locator('button', { hasText: 'Revoke' })
      .click();
    assert.match((await page.textContent('.status')) ?? '', /token was revoked/);
    assert.equal(await page.locator('#tokens tr', { hasText: 'ci-deploy' }).count(), 0);
    assert.equal(await apiStatus(deployToken), 401, 'the revoked token fails on its next request');
    assert.equal(await apiStatus(laptopToken), 200, 'the other token still works');

    // Disable the account (a two-step confirmation without JavaScript).
    await page.click('summary:has-text("Disable account")');
    await shot('5-disable-confirm');
    await page.locator('.confirm-box button', { hasText: 'Disable account' }).click();
    assert.match((await page.textContent('.status')) ?? '', /linus@example\.com is disabled/);
    await shot('6-user-disabled');
    assert.equal(await apiStatus(laptopToken), 401, 'a disabled user’s tokens are dead');
    const login = await gatehouse.app.inject({
      method: 'POST',
      url: '/api/tokens',
      payload: { email: target.email, password: target.password, device_name: 'again' },
    });
    assert.equal(login.statusCode, 401, 'a disabled user cannot sign in');

    // The audit log, filtered to this user, shows both actions by Grace.
    await page.click('.admin-nav >> text=Audit log');
    await page.fill('input[name=user]', target.email);
    await page.click('.toolbar button[type=submit]');
    const revoked = page.locator('table.data tbody tr', { hasText: 'Token revoked by admin' });
    const disabled = page.locator('table.data tbody tr', { hasText: 'Account disabled' });
    assert.equal(await revoked.count(), 1);
    assert.equal(await disabled.count(), 1);
    assert.match((await disabled.textContent()) ?? '', /Grace Hopper/);
    assert.match((await revoked.textContent()) ?? '', /Grace Hopper/);
    await shot('7-audit');

    await page.goto(`${base}/admin/users?lang=de`);
    await shot('8-users-de');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/admin/users/${target.id}?lang=en`);
    await shot('9-user-mobile');
  });
});
