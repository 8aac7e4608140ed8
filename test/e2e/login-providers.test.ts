import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SIGN_IN_FAILURES } from '../../src/http/views/login-providers.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { fresh, startUpstreams, type Upstreams } from '../helpers/login-providers.ts';
import { checkView, eachView, withLang } from '../helpers/screenshots.ts';

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
 * Signing in with other providers as a person does it, in Chromium (docs/guides/login-providers.md):
 * the buttons on /login and /register, a round trip through a real OpenID provider (oidc-provider) and
 * the GitHub stand-in, "Remember me" carried to the provider sign-in, every failure message on /login,
 * and the Linked accounts section (link behind the password confirmation, unlink, an account without a
 * password) — each page in four languages at 1280 and 390 px, accessible, photographed.
 */
describe('login providers in Chromium', { skip: chromiumSkip() }, () => {
  let up: Upstreams;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    up = await startUpstreams(base);
    t = await createTestApp('sqlite', { env: { ...up.env, APP_URL: base, IP_AUTH_LIMIT: '0' } });
    await t.app.listen({ port, host: 'localhost' });
    await t.services.identities.providers.settled();
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await up?.stop();
  });

  const path = () => new URL(page.url()).pathname;
  const click = (selector: string) =>
    Promise.all([page.waitForURL((url) => url.origin === base), page.click(selector)]);
  const submit = (action: string) =>
    Promise.all([page.waitForNavigation(), page.click(`form[action="${action}"] button[type=submit]`)]);
  const signOut = async () => {
    await page.goto(`${base}/dashboard`);
    if (path() === '/dashboard') await submit('/logout');
    // And at the providers (another origin): each sign-in there starts at their login screen again.
    await context.clearCookies({ domain: '127.0.0.1' });
  };

  test('Continue with Acme ID: to the provider and back, signed in with a new account', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const who = fresh('chromium');
    up.acme.signInAs({ sub: who.sub, email: who.email, email_verified: true, name: 'Ada Lovelace' });
    await page.goto(withLang(`${base}/login`, 'en'));
    await click('a[href="/auth/acme"]');
    assert.equal(path(), '/dashboard');
    assert.match((await page.textContent('body')) ?? '', /Ada Lovelace/);
    await signOut();

    // "Remember me" on the login page goes along (login-providers.js adds remember=1).
    const octo = fresh('octo');
    up.github.signInAs({
      id: 5_000_000 + octo.n,
      login: 'octo',
      emails: [{ email: octo.email, primary: true, verified: true }],
    });
    await page.goto(`${base}/login`);
    await page.check('input[name="remember"]');
    await click('a[href^="/auth/github"]');
    assert.equal(path(), '/dashboard');
    assert.equal(up.github.requests.length > 0, true);
    const cookies = await context.cookies(base);
    assert.ok(
      cookies.some((c) => c.name === 'gatehouse_remember'),
      'remembered',
    );
    assert.ok(!cookies.some((c) => c.name === 'gatehouse_upstream'), 'the attempt is spent');
    await signOut();
  });

  test('/login and /register with the buttons, in four languages at 1280 and 390 px', async () => {
    for (const name of ['login', 'register']) {
      await eachView(page, async (lang, width) => {
        await page.goto(withLang(`${base}/${name}`, lang));
        assert.equal(await page.locator('.login-providers a').count(), 4);
        await checkView(page, `providers-${name}`, lang, width);
      });
    }
  });

  test('every sign-in failure on /login, in four languages at 1280 and 390 px', async () => {
    await signOut();
    // The real thing once: refused at the provider.
    up.acme.denyNext();
    await page.goto(withLang(`${base}/login`, 'de'));
    await click('a[href="/auth/acme"]');
    assert.equal(path(), '/login');
    assert.match(
      (await page.textContent('.notice[role="alert"]')) ?? '',
      /Die Anmeldung mit Acme ID wurde abgebrochen/,
    );
    for (const reason of SIGN_IN_FAILURES) {
      await eachView(page, async (lang, width) => {
        await page.goto(withLang(`${base}/login?sign_in_error=${reason}&provider=acme`, lang));
        assert.equal(await page.locator('.notice[role="alert"]').count(), 1, reason);
        await checkView(page, `providers-failure-${reason}`, lang, width);
      });
    }
  });

  test('Linked accounts: link Google behind the password confirmation, unlink it; the section in four languages at 1280 and 390 px', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await signOut();
    const user = await t.createUser({ name: 'Grace Hopper' });
    await page.goto(withLang(`${base}/login`, 'en'));
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await submit('/login');
    await page.goto(`${base}/profile/security#linked-accounts`);
    const who = fresh('grace');
    up.google.signInAs({ sub: who.sub, email: who.email, email_verified: true });
    await click('#linked-accounts a[href="/auth/google?link=1"]');
    assert.equal(path(), '/user/confirm-password');
    await page.fill('#field-password', user.password);
    await Promise.all([
      page.waitForURL(`${base}/profile/security#linked-accounts`),
      page.click('form[action="/user/confirm-password"] button[type=submit]'),
    ]);
    assert.match((await page.textContent('[role=status]')) ?? '', /Google is linked/);
    assert.equal(await page.locator('#linked-accounts table.linked-accounts tbody tr').count(), 1);

    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/profile/security`, lang));
      await checkView(page, 'providers-linked-accounts', lang, width, { maxTabs: 80 });
    });

    await page.goto(withLang(`${base}/profile/security`, 'en'));
    await page.click('#linked-accounts details.confirm summary');
    await submit(`/user/linked-accounts/${await linkedId()}`);
    assert.match((await page.textContent('[role=status]')) ?? '', /Google is unlinked/);
    assert.equal(await page.locator('#linked-accounts table.linked-accounts').count(), 0);
    await signOut();
  });

  test('an account without a password: its only way in cannot be unlinked, and it is offered a password', async () => {
    const who = fresh('nopassword');
    up.microsoft.signInAs({ sub: who.sub, email: who.email, email_verified: false, name: 'Mary Jackson' });
    await signOut();
    await page.goto(withLang(`${base}/login`, 'en'));
    await click('a[href="/auth/microsoft"]');
    assert.equal(path(), '/dashboard');
    // Not verified by Microsoft: the account page waits for the mailed link; mark it verified here.
    await t.db
      .updateTable('users')
      .set({ email_verified_at: Date.now() })
      .where('email', '=', who.email)
      .execute();
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/profile/security`, lang));
      assert.equal(await page.locator('#linked-accounts details.confirm').count(), 0);
      assert.equal(await page.locator('#linked-accounts form[action="/forgot-password"]').count(), 1);
      await checkView(page, 'providers-only-way-in', lang, width, { maxTabs: 80 });
    });
    await page.goto(withLang(`${base}/profile/security`, 'en'));
    await submit('/forgot-password');
    assert.equal(path(), '/forgot-password');
    await signOut();
  });

  async function linkedId(): Promise<number> {
    const action = await page.getAttribute(
      '#linked-accounts form[action^="/user/linked-accounts/"]',
      'action',
    );
    return Number(action?.split('/').pop());
  }
});
