import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { insertPasskey } from '../../src/passkeys/passkeys.repository.ts';
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
 * The panel's pages with awkward data (a 120-character token name, a long address, many sessions
 * and audit rows), in Chromium, four languages at 1280 and 390 px: axe finds nothing, focus is
 * visible, the page never scrolls sideways (tables stack or scroll inside themselves), every
 * action button stays in view, and a screenshot of each lands in test/artifacts/.
 */

const LONG_NAME = `deploy-${'pipeline-'.repeat(14)}end`;
const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0';

describe('admin panel pages: layout and accessibility in Chromium', { skip: chromiumSkip() }, () => {
  let app: ChromiumApp | undefined;
  let t: TestApp;
  let base: string;
  let page: Page;
  let target: Awaited<ReturnType<TestApp['createUser']>>;

  before(async () => {
    // Webhooks to an endpoint nobody listens on: the sign-ins and tokens below queue deliveries for
    // the webhook page (a long path, and a query string it must never show).
    app = await openChromiumApp({
      env: {
        WEBHOOK_URLS: `http://127.0.0.1:9/hooks/gatehouse/production/${'receiver-'.repeat(6)}end?token=never-shown`,
        WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 9).toString('base64')}`,
      },
    });
    ({ t, base, page } = app);
    const admin = await t.createUser({ name: 'Grace Hopper', email: 'grace@example.com', panelAccess: true });
    target = await t.createUser({
      name: 'Bartholomew Fitzgerald-Montgomery',
      email: 'bartholomew.fitzgerald-montgomery.the.third@subdomain.example-company.com',
      verified: false,
    });
    await t.issueToken(target.email, target.password, {
      device_name: LONG_NAME,
      abilities: ['posts:read', 'posts:write'],
    });
    await t.issueToken(target.email, target.password, { device_name: 'laptop' });
    // Passkeys on the user page (docs/guides/admin-panel.md): a long name, one never used.
    for (const [i, name] of [`Bartholomew’s ${'security-key-'.repeat(6)}end`, 'Phone'].entries()) {
      const at = Date.now() - i * 86_400_000;
      await insertPasskey(t.db, {
        user_id: target.id,
        credential_hash: `${i}`.padStart(64, 'c'),
        credential_id: `walk-cred-${i}`,
        public_key: 'pk',
        counter: 0,
        transports: '[]',
        user_handle: `walk-${i}`,
        name,
        created_at: at,
        updated_at: at,
        last_used_at: i === 0 ? at : null,
      });
    }
    for (let i = 0; i < 3; i++) {
      const login = await t.app.inject({ method: 'GET', url: '/login', headers: { 'user-agent': UA } });
      const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      const csrf = /name="_token" value="([^"]+)"/.exec(login.body)![1]!;
      await t.app.inject({
        method: 'POST',
        url: '/login',
        headers: { 'user-agent': UA, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          _token: csrf,
          email: target.email,
          password: target.password,
        }).toString(),
      });
    }
    for (let i = 0; i < 3; i++) {
      await t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        payload: { email: target.email, password: 'wrong-password', device_name: 'x' },
      });
    }
    // The events handed to the endpoint (whose port refuses: they wait for a retry), then one delivered,
    // one given up after a server error, the rest waiting: every state on the page.
    await t.services.webhooks.worker!.drain();
    const [first, second] = await t.db
      .selectFrom('webhook_outbox')
      .select('id')
      .orderBy('id')
      .limit(2)
      .execute();
    const now = Date.now();
    await t.db
      .updateTable('webhook_outbox')
      .set({ sent_at: now, payload: '', attempts: 1, last_status: 204 })
      .where('id', '=', first!.id)
      .execute();
    await t.db
      .updateTable('webhook_outbox')
      .set({ failed_at: now, attempts: 31, last_status: 500, last_error: 'HTTP 500' })
      .where('id', '=', second!.id)
      .execute();
    await page.goto(`${base}/admin/login`);
    await page.fill('#field-email', admin.email);
    await page.fill('#field-password', admin.password);
    await Promise.all([
      page.waitForURL(`${base}/admin`),
      page.click('form[action="/admin/login"] button[type=submit]'),
    ]);
  });

  after(() => closeChromiumApp(app));

  async function check(name: string, lang: string, width: number) {
    await expectButtonsInView(await checkView(page, name, lang, width, { maxTabs: 120 }));
  }

  /** Every button and link in the main area lies within the viewport's width (none pushed out of view). */
  async function expectButtonsInView(label: string) {
    const outside = await page.evaluate(() => {
      const g = globalThis as unknown as {
        innerWidth: number;
        document: {
          querySelectorAll(s: string): Iterable<{
            textContent: string | null;
            getBoundingClientRect(): { left: number; right: number; width: number };
            closest(s: string): unknown;
          }>;
        };
      };
      const out: string[] = [];
      // A table that needs sideways scrolling hides its last columns: none may, at any width.
      for (const wrap of g.document.querySelectorAll('main .table-wrap')) {
        const box = wrap as unknown as { scrollWidth: number; clientWidth: number };
        if (box.scrollWidth > box.clientWidth + 1)
          out.push(`a table scrolls sideways (${box.scrollWidth}px in ${box.clientWidth}px)`);
      }
      for (const el of g.document.querySelectorAll('main button, main a, main summary')) {
        const box = el.getBoundingClientRect();
        if (box.width === 0) continue;
        if (box.left < 0 || box.right > g.innerWidth + 0.5)
          out.push((el.textContent ?? '').trim().slice(0, 40));
      }
      return out;
    });
    assert.deepEqual(outside, [], `${label}: controls outside the window`);
  }

  for (const [name, path] of [
    ['admin-overview', '/admin'],
    ['admin-users', '/admin/users'],
    ['admin-audit', '/admin/audit'],
    ['admin-webhooks', '/admin/webhooks'],
  ] as const) {
    test(`${name}: ${path}`, async () => {
      await eachView(page, async (lang, width) => {
        await page.goto(withLang(`${base}${path}`, lang));
        await check(name, lang, width);
      });
    });
  }

  test('admin-user: one user with a long token name, sessions and activity', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/admin/users/${target.id}`, lang));
      await check('admin-user', lang, width);
      if (width === 390) {
        // Stacked rows: each cell names its column, so a phone shows "Name: …" instead of a wide table.
        const cell = page.locator('#tokens tbody tr td').first();
        assert.ok((await cell.getAttribute('data-label'))?.length, 'cells carry their column name');
      }
    });
    // The long name is shown whole (wrapped), and the Revoke buttons are on screen at 1280 px.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/admin/users/${target.id}`, 'en'));
    assert.equal(await page.locator('#tokens').getByText(LONG_NAME).count(), 1);
  });

  test('admin-invite: the invite form, empty and failed', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/admin/users/new`, lang));
      await check('admin-invite', lang, width);
      await page.fill('#field-email', 'not an address');
      await clickAndLoad(page, 'form[action="/admin/users"] button[type=submit]');
      if (lang === 'en')
        assert.equal(await page.title(), '2 errors: Invite a user · Administration · Gatehouse');
      await check('admin-invite-failed', lang, width);
    });
  });

  test('admin-users-filtered and the delete box with its password field open', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/admin/users?filter=unverified`, lang));
      await check('admin-users-filtered', lang, width);
      await page.goto(withLang(`${base}/admin/users/${target.id}`, lang));
      await page
        .locator(`details.confirm:has(form[action="/admin/users/${target.id}/delete"]) > summary`)
        .click();
      await page.locator('details.confirm[open] input[name=password]').scrollIntoViewIfNeeded();
      await check('admin-user-delete-open', lang, width);
      await page.keyboard.press('Escape');
    });
  });

  test('admin-user-passkey-remove: the passkeys and a Remove box open; the list’s columns; e-mails; the overview on a phone', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/admin/users/${target.id}`, lang));
      assert.equal(await page.locator('#passkeys tbody tr').count(), 2);
      await page.locator('#passkeys details.confirm > summary').first().click();
      await page.locator('#passkeys details.confirm[open] input[name=password]').scrollIntoViewIfNeeded();
      await check('admin-user-passkey-remove', lang, width);
      await page.keyboard.press('Escape');
    });
    // An address breaks between its parts only: <wbr> before the @ and each dot, no
    // break-anywhere inherited from its cell.
    await page.goto(withLang(`${base}/admin/users?q=bartholomew`, 'en'));
    const email = page.locator('main .email').first();
    assert.equal(await email.locator('wbr').count(), 6, 'before each dot and the @');
    assert.equal(
      await email.evaluate(
        (el) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { overflowWrap: string } }
          ).getComputedStyle(el).overflowWrap,
      ),
      'break-word',
    );
    assert.equal(await page.locator('main thead th', { hasText: 'Two-factor' }).count(), 1);
    assert.equal(await page.locator('main thead th', { hasText: 'Passkeys' }).count(), 1);
    // The overview's cards: two a row on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(withLang(`${base}/admin`, 'en'));
    const tops = await page
      .locator('.stats .stat')
      .evaluateAll((cards) => cards.map((card) => Math.round(card.getBoundingClientRect().top)));
    assert.equal(tops[0], tops[1], 'the first two cards share a row');
    assert.notEqual(tops[1], tops[2], 'the third starts the next');
  });

  test('the confirm box closes with Escape and gives focus back to its button', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(withLang(`${base}/admin/users/${target.id}`, 'en'));
    const summary = page.locator('details.confirm > summary').first();
    await summary.focus();
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('details.confirm[open]').count(), 1);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('details.confirm[open]').count(), 0);
    assert.equal(
      await summary.evaluate(
        (el) =>
          el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
      ),
      true,
    );
  });
});
