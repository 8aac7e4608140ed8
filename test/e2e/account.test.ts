import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import {
  type ChromiumApp,
  chromiumSkip,
  closeChromiumApp,
  focusedId,
  openChromiumApp,
} from '../helpers/chromium.ts';
import {
  ARTIFACTS,
  checkView,
  eachView,
  screenshot,
  TAKE_SCREENSHOTS,
  withLang,
} from '../helpers/screenshots.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const NEW_PASSWORD = 'violet-harbour-lantern-7';

/**
 * The account page as a person uses it, in Chromium: change the name, create a token and call the
 * API with it from the page (fetch), sign a second browser out from the first, change the password
 * (the other browser is signed out), download the data, delete the account. The page in four
 * languages at 1280 and 390 px, with every section filled, accessible, each view photographed.
 */
describe('the account page in Chromium', { skip: chromiumSkip() }, () => {
  let t: TestApp;
  let base: string;
  let page: Page;
  let app: ChromiumApp | undefined;
  /** The second browser: its own context (cookies), another User-Agent. */
  let second: BrowserContext;
  let other: Page;
  let user: Awaited<ReturnType<TestApp['createUser']>>;
  let password: string;
  let token = '';

  before(async () => {
    app = await openChromiumApp({ env: { IP_AUTH_LIMIT: '0' } });
    ({ t, base, page } = app);
    second = await app.browser.newContext({ userAgent: FIREFOX });
    other = await second.newPage();
    user = await t.createUser({ name: 'Ada Lovelace' });
    password = user.password;
  });
  after(async () => {
    await second?.close();
    await closeChromiumApp(app);
  });

  const submit = (target: Page, action: string, scope = '') =>
    Promise.all([
      target.waitForNavigation(),
      target.click(`${scope} form[action="${action}"] button[type=submit]`.trim()),
    ]);
  const status = async (target: Page) => (await target.textContent('[role=status]')) ?? '';
  /** Follows the account area's side navigation to one of its pages. */
  const openArea = async (target: Page, name: string) => {
    await Promise.all([
      target.waitForNavigation(),
      target.getByRole('navigation', { name: 'Account settings' }).getByRole('link', { name }).click(),
    ]);
    assert.equal(
      await target.getAttribute('.account-nav a[aria-current="page"]', 'data-area'),
      new URL(target.url()).pathname.split('/')[2] ?? 'profile',
    );
  };

  async function logIn(target: Page) {
    await target.goto(withLang(`${base}/login`, 'en'));
    await target.fill('#field-email', user.email);
    await target.fill('#field-password', password);
    await submit(target, '/login');
    assert.equal(new URL(target.url()).pathname, '/dashboard');
  }

  /** GET /api/user with the token and no cookie (credentials: 'omit'), from the page. */
  const callApi = (target: Page) =>
    target.evaluate(
      async ([url, bearer]) => {
        const response = await fetch(url!, {
          headers: { authorization: `Bearer ${bearer}` },
          credentials: 'omit',
        });
        return { status: response.status, body: await response.text() };
      },
      [`${base}/api/user`, token],
    );

  test('change the name', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await logIn(page);
    await logIn(other);
    await page.goto(`${base}/profile`);
    await page.fill('#field-name', 'Ada Byron');
    await submit(page, '/user/profile-information');
    assert.equal(new URL(page.url()).pathname, '/profile');
    assert.equal(await status(page), 'Saved.');
    assert.equal(await page.inputValue('#field-name'), 'Ada Byron');
  });

  test('create a token and use it with fetch', async () => {
    await openArea(page, 'API tokens');
    assert.equal(new URL(page.url()).pathname, '/profile/tokens');
    await page.fill('#field-token-name', 'laptop script');
    await page.check('#ability-new-posts\\:read');
    await submit(page, '/user/api-tokens', '#api-tokens');
    token = ((await page.textContent('#new-token code')) ?? '').trim();
    assert.match(token, /^\d+\|[A-Za-z0-9]{48}$/);
    const answer = await callApi(page);
    assert.equal(answer.status, 200, answer.body);
    assert.equal(JSON.parse(answer.body).name, 'Ada Byron');
    await page.reload();
    assert.equal(await page.locator('#new-token').count(), 0, 'the plaintext is shown once');
  });

  test('a token: its abilities behind a named toggle, revoked only after a second click', async () => {
    await page.goto(`${base}/profile/tokens`);
    await page.fill('#field-token-name', 'old script');
    await submit(page, '/user/api-tokens', '#api-tokens');
    const toggle = page.locator('details.token-edit summary', { hasText: 'the abilities of old script' });
    assert.equal(await toggle.count(), 1, 'the toggle says which token it changes');
    await toggle.click();
    assert.equal(await page.isVisible('fieldset legend:has-text("Abilities of old script")'), true);
    const revoke = page.locator('summary[aria-label="Revoke old script"]');
    await revoke.click();
    assert.match((await page.textContent('details.confirm[open] .confirm-box')) ?? '', /Revoke old script\?/);
    await checkView(page, 'account-tokens-revoke-confirm', 'en', 1280, { maxTabs: 60 });
    await Promise.all([page.waitForNavigation(), page.click('details.confirm[open] button[type=submit]')]);
    assert.equal(await status(page), 'The token was revoked.');
    assert.equal(await page.locator('summary[aria-label="Revoke old script"]').count(), 0);
    assert.equal(await page.locator('summary[aria-label="Revoke laptop script"]').count(), 1);
  });

  test('every page of the account area in four languages at 1280 and 390 px, every section filled', async () => {
    // A pending address change, so its notice is in the pictures too.
    await openArea(page, 'Profile');
    await page.fill('#field-email', 'ada.byron@example.net');
    await submit(page, '/user/profile-information');
    assert.match(await status(page), /We sent a confirmation link to ada\.byron@example\.net/);
    for (const area of ['', '/security', '/sessions', '/tokens', '/data']) {
      await eachView(page, async (lang, width) => {
        await page.goto(withLang(`${base}/profile${area}`, lang));
        await checkView(page, `account${area.replace('/', '-')}`, lang, width, { maxTabs: 60 });
      });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/profile`, 'en'));
  });

  test('sign the other browser out from this one', async () => {
    await openArea(page, 'Sessions');
    // Times in the browser's own words and time zone: "now", the exact local time in the tooltip.
    const times = page.locator('#browser-sessions time[data-relative]');
    assert.ok((await times.count()) >= 4, 'signed in and last active, per browser');
    assert.match((await times.first().textContent()) ?? '', /^(now|\d+ minutes? ago|1 minute ago)$/);
    assert.doesNotMatch((await times.first().getAttribute('title')) ?? 'UTC', /UTC/);
    const end = page.locator('button[aria-label="Sign out Firefox 128 · Linux"]');
    assert.equal(await end.count(), 1);
    await Promise.all([page.waitForNavigation(), end.click()]);
    assert.equal(await status(page), 'That browser has been signed out.');
    await other.goto(`${base}/dashboard`);
    assert.equal(new URL(other.url()).pathname, '/login');
  });

  test('change the password: the other browser is signed out, this one stays', async () => {
    await logIn(other);
    await page.goto(`${base}/profile/security`);
    // The strength meter follows the typing (and says so to screen readers once per level).
    await page.fill('#field-password', 'short');
    assert.equal(await page.textContent('.strength-text'), 'Strength: too short');
    await page.fill('#field-password', 'password123');
    assert.match((await page.textContent('.strength-text')) ?? '', /^Strength: weak/);
    await page.fill('#field-password', NEW_PASSWORD);
    assert.match((await page.textContent('.strength-text')) ?? '', /^Strength: (good|strong)/);
    if (TAKE_SCREENSHOTS)
      await page
        .locator('#password')
        .screenshot({ path: join(ARTIFACTS, 'account-password-strength-en-1280.png') });
    await page.fill('#field-current_password', password);
    await page.fill('#field-password', NEW_PASSWORD);
    await page.fill('#field-password_confirmation', NEW_PASSWORD);
    await submit(page, '/user/password');
    password = NEW_PASSWORD;
    assert.match(await status(page), /Your password was changed/);
    await other.goto(`${base}/dashboard`);
    assert.equal(new URL(other.url()).pathname, '/login');
    await page.goto(`${base}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard');
  });

  test('download the data: the link asks for the password, then the file arrives', async () => {
    await page.goto(`${base}/profile/data`);
    await Promise.all([page.waitForNavigation(), page.click('#export a[href="/user/export"]')]);
    assert.equal(new URL(page.url()).pathname, '/user/confirm-password');
    await page.fill('#field-password', password);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('form[action="/user/confirm-password"] button[type=submit]'),
    ]);
    assert.match(download.suggestedFilename(), /^gatehouse-data-\d{4}-\d{2}-\d{2}\.json$/);
    const file = await download.path();
    const text = readFileSync(file, 'utf8');
    const data = JSON.parse(text);
    assert.equal(data.profile.name, 'Ada Byron');
    assert.equal(data.pending_email.email, 'ada.byron@example.net');
    assert.deepEqual(
      data.api_tokens.map((t: { name: string }) => t.name),
      ['laptop script'],
    );
    for (const secret of [user.password, NEW_PASSWORD, token, token.split('|')[1]!]) {
      assert.ok(!text.includes(secret), 'no secret in the download');
    }
    // Confirmed now: the link downloads at once.
    await page.goto(`${base}/profile/data`);
    const [again] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#export a[href="/user/export"]'),
    ]);
    assert.match(again.suggestedFilename(), /^gatehouse-data-/);
  });

  test('delete the account: a wrong password is refused beside the field; the right one signs out everywhere', async () => {
    await logIn(other);
    await page.goto(`${base}/profile`);
    await openArea(page, 'Your data');
    await page.fill('#field-delete-password', 'not my password');
    await submit(page, '/user', '#delete-account');
    assert.equal(
      await page.textContent('#field-delete-password-error'),
      'The provided password was incorrect.',
    );
    assert.equal(await focusedId(page), 'field-delete-password', 'focus on the field to fix');
    await page.locator('#delete-account').scrollIntoViewIfNeeded();
    await checkView(page, 'account-delete-wrong', 'en', 1280, { maxTabs: 120 });

    await page.fill('#field-delete-password', password);
    await submit(page, '/user', '#delete-account');
    assert.equal(new URL(page.url()).pathname, '/');
    assert.equal(await status(page), 'Your account has been deleted. Goodbye.');
    await screenshot(page, 'account-deleted');
    assert.equal((await callApi(page)).status, 401, 'the token died with the account');
    await page.goto(`${base}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/login');
    await other.goto(`${base}/dashboard`);
    assert.equal(new URL(other.url()).pathname, '/login');
  });

  test('the last admin is told why the account cannot be deleted', async () => {
    user = await t.createUser({ name: 'Grace Hopper', panelAccess: true });
    password = user.password;
    await logIn(page);
    await eachView(
      page,
      async (lang, width) => {
        await page.goto(withLang(`${base}/profile#delete-account`, lang));
        assert.equal(await page.locator('form[action="/user"]').count(), 0);
        await checkView(page, 'account-last-admin', lang, width, { maxTabs: 120 });
      },
      { languages: ['en'] },
    );
  });
});
