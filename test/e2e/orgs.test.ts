import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import { type ChromiumApp, chromiumSkip, closeChromiumApp, openChromiumApp } from '../helpers/chromium.ts';
import { createOrg, invite, join, type Person, person } from '../helpers/orgs.ts';
import { checkView, eachView, withLang } from '../helpers/screenshots.ts';

/**
 * The organization pages (docs/guides/organizations.md) in Chromium, in four languages at 1280 and 390
 * px, with long names: the list with its creation form and the switcher, one organization's members
 * (role forms, remove and leave), its invitations and roles, an invitation link (open, and refused),
 * the last-owner refusal, the account area's entry and the panel's two pages. axe finds nothing, focus
 * is visible, nothing scrolls sideways. Then the same flows without JavaScript: switch, change a role,
 * invite, accept.
 */
const LONG = 'Internationale Gesellschaft für Rechenmaschinen und Datenverarbeitung';

describe('organization pages in Chromium', { skip: chromiumSkip() }, () => {
  let app: ChromiumApp | undefined;
  let t: TestApp;
  let base: string;
  let page: Page;
  let browser: Browser;
  let owner: Person;
  let invitee: Person;
  let slug: string;
  let link: URL;
  let orgId: number;

  before(async () => {
    app = await openChromiumApp({ env: { ORG_ROLES: 'billing=invoices:read,invoices:write' } });
    ({ t, base, page, browser } = app);
    owner = await person(t, { name: 'Ada Lovelace', email: 'ada@example.com' });
    const admin = await person(t, { name: 'Bartholomew Fitzgerald-Montgomery', email: 'bart@example.com' });
    const member = await person(t, {
      name: 'Grace Hopper',
      email: 'grace.hopper@subdomain.example-company.com',
    });
    const org = await createOrg(owner, 'rechenmaschinen', LONG);
    orgId = org.id;
    slug = org.slug;
    await createOrg(owner, 'analytical-engine', 'Analytical Engine');
    await join(t, owner, slug, admin, 'admin');
    await join(t, owner, slug, member, 'billing');
    await invite(t, owner, slug, 'someone.with.a.very.long.address@subdomain.example-company.com', 'admin');
    invitee = await person(t, { name: 'Charles Babbage', email: 'charles@example.com' });
    ({ link } = await invite(t, owner, slug, invitee.user.email, 'member'));
  });
  after(() => closeChromiumApp(app));

  /** Signs `who` in on `target`, signing out whoever was signed in there first. */
  async function logIn(target: Page, who: Person) {
    await target.goto(withLang(`${base}/login`, 'en'));
    if (new URL(target.url()).pathname !== '/login') {
      await Promise.all([
        target.waitForNavigation(),
        target.click('form[action="/logout"] button[type=submit]'),
      ]);
      await target.goto(withLang(`${base}/login`, 'en'));
    }
    await target.fill('#field-email', who.user.email);
    await target.fill('#field-password', who.user.password);
    await Promise.all([
      target.waitForNavigation(),
      target.click('form[action="/login"] button[type=submit]'),
    ]);
  }

  test('every page of an organization, as its owner', async () => {
    await logIn(page, owner);
    for (const [name, path] of [
      ['orgs-list', '/orgs'],
      ['org-members', `/orgs/${slug}`],
      ['org-invitations', `/orgs/${slug}/invitations`],
      ['org-roles', `/orgs/${slug}/roles`],
      ['account-organizations', '/profile/organizations'],
    ] as const) {
      await eachView(page, async (lang, width) => {
        await page.goto(withLang(`${base}${path}`, lang));
        await checkView(page, name, lang, width, { maxTabs: 120 });
      });
    }
  });

  test('the last owner’s refusal, and a failed invitation form', async () => {
    await eachView(page, async (lang, width) => {
      await page.goto(withLang(`${base}/orgs/${slug}`, lang));
      await Promise.all([
        page.waitForNavigation(),
        page.click(`form[action="/orgs/${slug}/members/me"] button[type=submit]`),
      ]);
      if (lang === 'en') assert.match((await page.textContent('[role=alert]')) ?? '', /needs an owner/);
      await checkView(page, 'org-last-owner', lang, width, { maxTabs: 120 });
      await page.goto(withLang(`${base}/orgs/${slug}/invitations`, lang));
      await page.fill('#field-email', 'not an address');
      await Promise.all([
        page.waitForNavigation(),
        page.click(`form[action="/orgs/${slug}/invitations"] button[type=submit]`),
      ]);
      if (lang === 'en') assert.equal(await page.title(), `1 error: Invitations · ${LONG} · Gatehouse`);
      await checkView(page, 'org-invite-failed', lang, width, { maxTabs: 120 });
    });
  });

  test('an invitation link: open for the invited address, refused for another account', async () => {
    const context: BrowserContext = await browser.newContext();
    const other = await context.newPage();
    try {
      await logIn(other, invitee);
      await eachView(other, async (lang, width) => {
        await other.goto(withLang(link.toString().replace('http://gatehouse.test', base), lang));
        await checkView(other, 'org-invitation', lang, width);
      });
      await logIn(other, owner);
      await eachView(other, async (lang, width) => {
        await other.goto(withLang(link.toString().replace('http://gatehouse.test', base), lang));
        await checkView(other, 'org-invitation-refused', lang, width);
      });
    } finally {
      await context.close();
    }
  });

  test('the panel’s organizations and one organization', async () => {
    const admin = await t.createUser({ name: 'Panel Admin', email: 'panel@example.com', panelAccess: true });
    const context = await browser.newContext();
    const panel = await context.newPage();
    try {
      await panel.goto(`${base}/admin/login`);
      await panel.fill('#field-email', admin.email);
      await panel.fill('#field-password', admin.password);
      await Promise.all([panel.waitForNavigation(), panel.click('button[type=submit]')]);
      for (const [name, path] of [
        ['admin-orgs', '/admin/orgs'],
        ['admin-org', `/admin/orgs/${orgId}`],
      ] as const) {
        await eachView(panel, async (lang, width) => {
          await panel.goto(withLang(`${base}${path}`, lang));
          await checkView(panel, name, lang, width);
        });
      }
    } finally {
      await context.close();
    }
  });

  test('without JavaScript: switch organization, change a role, invite, accept', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    const submit = (action: string, scope = '') =>
      Promise.all([
        plain.waitForNavigation(),
        plain.click(`${scope} form[action="${action}"] button[type=submit]`.trim()),
      ]);
    try {
      await logIn(plain, owner);
      await plain.goto(`${base}/orgs`);
      await plain.selectOption('#org-switcher', { label: 'Analytical Engine' });
      await submit('/user/current-org');
      assert.equal(new URL(plain.url()).pathname, '/orgs/analytical-engine');
      assert.match(
        (await plain.textContent('[role=status]')) ?? '',
        /You are now working in Analytical Engine/,
      );

      await plain.goto(`${base}/orgs/${slug}`);
      const bart = await t.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'bart@example.com')
        .executeTakeFirstOrThrow();
      await plain.selectOption(`#role-${bart.id}`, 'member');
      await submit(`/orgs/${slug}/members/${bart.id}`);
      assert.match((await plain.textContent('[role=status]')) ?? '', /Role changed/);

      await plain.goto(`${base}/orgs/${slug}/invitations`);
      await plain.fill('#field-email', 'dora@example.com');
      await plain.selectOption('#field-role', 'billing');
      await submit(`/orgs/${slug}/invitations`);
      assert.match((await plain.textContent('[role=status]')) ?? '', /Invitation sent/);
      assert.match((await plain.textContent('table')) ?? '', /dora@example\.com/);

      await logIn(plain, invitee);
      await plain.goto(link.toString().replace('http://gatehouse.test', base));
      await submit(link.pathname);
      assert.equal(new URL(plain.url()).pathname, `/orgs/${slug}`);
      assert.match((await plain.textContent('[role=status]')) ?? '', /Welcome to/);
    } finally {
      await context.close();
    }
  });
});
