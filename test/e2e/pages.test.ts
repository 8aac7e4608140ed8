import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import {
  type ChromiumApp,
  chromiumSkip,
  clickAndLoad,
  closeChromiumApp,
  focusedId,
  openChromiumApp,
} from '../helpers/chromium.ts';
import { checkView, eachView, withLang } from '../helpers/screenshots.ts';

/**
 * Every guest page and its failure states, in Chromium, in four languages at 1280 and 390 px:
 * axe-core finds nothing, focus is visible (≥ 3:1, and in forced colors), nothing scrolls sideways,
 * and a screenshot of each lands in test/artifacts/.
 */

describe('guest pages: accessibility and layout in Chromium', { skip: chromiumSkip() }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;

  let app: ChromiumApp | undefined;
  before(async () => {
    app = await openChromiumApp();
    ({ t, base, browser, page } = app);
  });
  after(() => closeChromiumApp(app));

  const check = (name: string, lang: string, width: number) => checkView(page, name, lang, width);

  for (const [name, path] of [
    ['home', '/'],
    ['login', '/login'],
    ['register', '/register'],
    ['forgot-password', '/forgot-password'],
    ['reset-password', '/reset-password/abc?email=ada%40example.com'],
    ['not-found', '/no-such-page'],
  ] as const) {
    test(`${name}: ${path}`, async () => {
      await eachView(page, async (lang, width) => {
        await page.goto(withLang(`${base}${path}`, lang));
        await check(name, lang, width);
      });
    });
  }

  const submit = (action: string) =>
    Promise.all([page.waitForNavigation(), page.click(`form[action="${action}"] button[type=submit]`)]);
  const title = () => page.title();
  const focused = () => focusedId(page);

  test('login, failed: error count in the title, focus on the e-mail field, the password cleared with a note', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/login`, lang));
      await page.fill('#field-email', `nobody.${lang}.${width}@example.com`);
      await page.fill('#field-password', 'wrong password');
      await submit('/login');
      if (lang === 'en') {
        assert.equal(await title(), '1 error: Log in · Gatehouse');
        assert.equal(await focused(), 'field-email');
        assert.equal(await page.inputValue('#field-password'), '');
        assert.equal(
          await page.getAttribute('#field-password', 'aria-describedby'),
          'field-password-cleared',
        );
        assert.match((await page.textContent('#field-password-cleared')) ?? '', /enter it again/);
      }
      await check('login-failed', lang, width);
    });
  });

  test('register, failed: the confirmation error stands at the confirmation field, which gets focus', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/register`, lang));
      await page.fill('#field-name', 'Ada');
      await page.fill('#field-email', 'not an address');
      await page.fill('#field-password', 'tangerine orbit 42');
      await page.fill('#field-password_confirmation', 'tangerine orbit 43');
      await submit('/register');
      if (lang === 'en') {
        assert.equal(await title(), '2 errors: Create an account · Gatehouse');
        assert.equal(await focused(), 'field-email');
        assert.equal(await page.getAttribute('#field-password', 'aria-invalid'), null);
        assert.equal(await page.getAttribute('#field-password_confirmation', 'aria-invalid'), 'true');
        assert.equal(
          await page.textContent('#field-password_confirmation-error'),
          'The password field confirmation does not match.',
        );
        assert.equal(await page.inputValue('#field-name'), 'Ada', 'the name is kept');
      }
      await check('register-failed', lang, width);
    });
    // The same mismatch alone: the confirmation field is the first invalid one, and has focus.
    await page.goto(withLang(`${base}/register`, 'en'));
    await page.fill('#field-name', 'Ada');
    await page.fill('#field-email', 'ada.confirm@example.com');
    await page.fill('#field-password', 'tangerine orbit 42');
    await page.fill('#field-password_confirmation', 'tangerine orbit 43');
    await submit('/register');
    assert.equal(await focused(), 'field-password_confirmation');
  });

  test('show password: a button that works with the keyboard and says whether it is pressed', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/login`, 'en'));
    const toggle = page.getByRole('button', { name: 'Show password' });
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await page.fill('#field-password', 'secret words');
    await toggle.focus();
    await page.keyboard.press('Enter');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.equal(await page.getAttribute('#field-password', 'type'), 'text');
    await page.keyboard.press('Space');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    assert.equal(await page.getAttribute('#field-password', 'type'), 'password');

    // Without JavaScript the button is not there (nothing that does nothing), and the form still works.
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    try {
      const plain = await noScript.newPage();
      await plain.goto(`${base}/login`);
      assert.equal(await plain.getByRole('button', { name: 'Show password' }).count(), 0);
      const user = await t.createUser();
      await plain.fill('#field-email', user.email);
      await plain.fill('#field-password', user.password);
      await Promise.all([
        plain.waitForURL(`${base}/dashboard`),
        plain.click('form[action="/login"] button[type=submit]'),
      ]);
    } finally {
      await noScript.close();
    }
  });

  test('the language switch keeps the query string (a prefilled e-mail survives)', async () => {
    await page.goto(`${base}/forgot-password?email=ada%40example.com&lang=en`);
    await page.getByRole('navigation', { name: 'Language' }).getByRole('link', { name: 'DE' }).click();
    await page.waitForURL(/lang=de/);
    assert.equal(new URL(page.url()).searchParams.get('email'), 'ada@example.com');
    assert.equal(await page.inputValue('#field-email'), 'ada@example.com');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
  });

  test('favicon and script are served from our own origin', async () => {
    for (const path of ['/favicon.ico', '/favicon.svg', '/assets/app.js']) {
      const response = await page.request.get(`${base}${path}`);
      assert.equal(response.status(), 200, path);
    }
  });
});

describe('signed-in pages and recoverable flows in Chromium', { skip: chromiumSkip() }, () => {
  let base: string;
  let context: BrowserContext;
  let page: Page;

  let app: ChromiumApp | undefined;
  before(async () => {
    app = await openChromiumApp();
    ({ base, context, page } = app);
  });
  after(() => closeChromiumApp(app));

  const check = (name: string, lang: string, width: number) => checkView(page, name, lang, width);

  let email = '';

  test('after registering, the dashboard says where the verification link went', async () => {
    await eachView(page, async (lang, width) => {
      await context.clearCookies();
      email = `ada.${lang}.${width}.${Date.now()}@example.com`;
      await page.goto(withLang(`${base}/register`, lang));
      await page.fill('#field-name', 'Ada Lovelace');
      await page.fill('#field-email', email);
      await page.fill('#field-password', 'tangerine orbit 42');
      await page.fill('#field-password_confirmation', 'tangerine orbit 42');
      await Promise.all([
        page.waitForURL(`${base}/dashboard`),
        page.click('form[action="/register"] button[type=submit]'),
      ]);
      assert.match(
        (await page.getByRole('status').textContent()) ?? '',
        new RegExp(email.replace(/\./g, '\\.')),
      );
      await check('dashboard-registered', lang, width);
    });
  });

  test('the verification notice: a mistyped address is corrected there, and the new link goes to it', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/email/verify`, 'en'));
    await page.click('details.notice-option summary >> nth=0');
    await page.fill('form[action="/user/profile-information"] #field-email', 'not an address');
    await clickAndLoad(page, 'form[action="/user/profile-information"] button[type=submit]');
    assert.match((await page.textContent('#field-email-error')) ?? '', /valid email address/);
    await checkView(page, 'verify-notice-correct-failed', 'en', 1280);
    email = `ada.fixed.${Date.now()}@example.com`;
    await page.fill('form[action="/user/profile-information"] #field-email', email);
    await Promise.all([
      page.waitForURL(`${base}/email/verify`),
      page.click('form[action="/user/profile-information"] button[type=submit]'),
    ]);
    assert.match((await page.getByRole('status').textContent()) ?? '', /Your address is now ada\.fixed\./);
  });

  test('the verification notice: where the link went, the limit, log out; when used up, when it works again', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/email/verify`, lang));
      await check('verify-notice', lang, width);
    });
    // Its ways out, unfolded: correct the address, delete the account.
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/email/verify`, lang));
      for (const summary of await page.locator('details.notice-option summary').all()) await summary.click();
      await check('verify-notice-options', lang, width);
    });
    await page.goto(withLang(`${base}/email/verify`, 'en'));
    for (let i = 0; i < 7; i++) {
      await clickAndLoad(page, 'form[action="/email/verification-notification"] button');
    }
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /You can ask for another one in \d+ seconds?\./,
    );
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/email/verify`, lang));
      await check('verify-notice-wait', lang, width);
    });
  });

  test('a damaged or foreign verification link explains itself', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/email/verify/1/${'0'.repeat(40)}?expires=1&signature=00`, lang));
      await check('verify-link-bad', lang, width);
    });
  });

  test('error pages keep the signed-in navigation: 404 and 419', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/no-such-page`, lang));
      assert.equal(await page.getByRole('navigation', { name: /./ }).first().isVisible(), true);
      await check('not-found-signed-in', lang, width);
    });
    // A stale form: the CSRF token no longer matches the session (e.g. logged out in another tab).
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/email/verify`, lang));
      await page.evaluate(() => {
        const { document } = globalThis as unknown as {
          document: { querySelector(s: string): { value: string } | null };
        };
        const token = document.querySelector('form[action="/email/verification-notification"] [name=_token]');
        if (token) token.value = 'stale';
      });
      await clickAndLoad(page, 'form[action="/email/verification-notification"] button');
      assert.equal(
        await page.textContent('h1'),
        lang === 'en' ? 'Page Expired' : await page.textContent('h1'),
      );
      await check('page-expired', lang, width);
    });
  });

  test('profile: details and an API token table that stacks on a phone', async () => {
    await context.clearCookies();
    const user = await app!.t.createUser({ name: 'Verified Vera' });
    await app!.t.issueToken(user.email, user.password, {
      device_name: `ci-${'runner-'.repeat(12)}end`,
      abilities: ['posts:read'],
    });
    await page.goto(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      page.click('form[action="/login"] button[type=submit]'),
    ]);
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/profile/tokens`, lang));
      await check('profile-tokens', lang, width);
    });
    // The dashboard's security card, nudging while only the password protects the account.
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/dashboard`, lang));
      await check('dashboard-security', lang, width);
    });
  });

  test('a dead reset link says so before anything is typed', async () => {
    await context.clearCookies();
    await eachView(page, async (lang, width) => {
      await page.goto(
        withLang(`${base}/reset-password/not-a-real-token?email=${encodeURIComponent(email)}`, lang),
      );
      assert.equal(await page.locator('form[action="/reset-password"]').count(), 0);
      await check('reset-link-dead', lang, width);
    });
  });
});

/**
 * docs/reference/errors.md: a form the per-IP budget refuses comes back as itself — its own words once
 * ("Too many password reset requests", never "login attempts"), what was typed kept, the same button to
 * try again — in four languages at 1280 and 390 px, axe-clean, without sideways scrolling.
 */
describe('throttled forms (429) in Chromium', { skip: chromiumSkip() }, () => {
  let base: string;
  let page: Page;
  let app: ChromiumApp | undefined;
  before(async () => {
    app = await openChromiumApp({ env: { IP_AUTH_LIMIT: '1' } });
    ({ base, page } = app);
  });
  after(() => closeChromiumApp(app));

  /** Submits the form until the budget refuses it (the first submit of a minute may pass). */
  async function submitUntilRefused(action: string, fill: () => Promise<void>) {
    for (let tries = 0; tries < 3; tries++) {
      await fill();
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click(`form[action="${action}"] button[type=submit]`),
      ]);
      await page.waitForLoadState();
      if (response.status() === 429) return;
    }
    assert.fail(`${action} was never refused`);
  }

  const WORDS: Record<string, RegExp> = {
    en: /Too many password reset requests\./,
    de: /Zu viele Anfragen zum Zurücksetzen des Passworts\./,
    fr: /Trop de demandes de réinitialisation du mot de passe\./,
    es: /Demasiadas solicitudes de restablecimiento de contraseña\./,
  };

  test('throttled-forgot-password: the form again, its words once, the address kept', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/forgot-password`, lang));
      await submitUntilRefused('/forgot-password', () => page.fill('#field-email', 'ada@example.com'));
      const body = (await page.textContent('main')) ?? '';
      assert.equal(body.split(WORDS[lang]!).length, 2, `${lang}: said once`);
      assert.doesNotMatch(body, /login attempts/);
      assert.equal(await page.inputValue('#field-email'), 'ada@example.com');
      await checkView(page, 'throttled-forgot-password', lang, width);
    });
  });

  test('throttled-register: name and address kept, the password fields empty', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/register`, 'en'));
    await submitUntilRefused('/register', async () => {
      await page.fill('#field-name', 'Ada Lovelace');
      await page.fill('#field-email', 'ada@example.com');
      await page.fill('#field-password', 'orchid-lantern-harbour-9');
      await page.fill('#field-password_confirmation', 'orchid-lantern-harbour-9');
    });
    assert.match((await page.textContent('main')) ?? '', /Too many sign-up attempts\./);
    assert.equal(await page.inputValue('#field-name'), 'Ada Lovelace');
    assert.equal(await page.inputValue('#field-password'), '');
    await checkView(page, 'throttled-register', 'en', 1280);
  });
});
