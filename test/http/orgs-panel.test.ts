import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedInAdmin } from '../helpers/account.ts';
import { describeApp } from '../helpers/app.ts';
import { createOrg, join, newSlug, person } from '../helpers/orgs.ts';

/**
 * The panel's organizations (docs/guides/organizations.md), on every dialect: the list with its search,
 * one organization's members, roles and pending invitations, the audit log naming each action; the data
 * export holds the user's memberships.
 */
await describeApp('organizations in the panel', (ctx) => {
  test('the list (searchable, with member counts) and one organization with members and invitations', async () => {
    const t = ctx();
    const { browser } = await signedInAdmin(t);
    const owner = await person(t, { name: 'Olivia Owner' });
    const member = await person(t, { name: 'Mo Member' });
    const slug = newSlug('panel');
    const org = await createOrg(owner, slug, 'Panel 100% <Org>');
    await join(t, owner, slug, member, 'admin');
    await owner.json('POST', `/orgs/${slug}/invitations`, { email: 'later@example.com', role: 'member' });
    const list = await browser.get('/admin/orgs');
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /Panel 100% &lt;Org&gt;/);
    assert.match(list.body, new RegExp(`<a class="strong" href="/admin/orgs/${org.id}">`));
    const found = await browser.get('/admin/orgs?q=100%25');
    assert.match(found.body, /Panel 100% &lt;Org&gt;/);
    const missed = await browser.get('/admin/orgs?q=100_');
    assert.doesNotMatch(missed.body, /Panel 100%/, '% and _ are characters, not wildcards');
    assert.match((await browser.get(`/admin/orgs?q=${slug}`)).body, /Panel 100%/);
    const page = await browser.get(`/admin/orgs/${org.id}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Olivia Owner[\s\S]*Owner[\s\S]*Mo Member[\s\S]*Administrator/);
    assert.match(page.body, /later@example\.com/);
    assert.equal((await browser.get('/admin/orgs/99999999')).statusCode, 404);
    assert.equal((await browser.get('/admin/orgs/abc')).statusCode, 404);
    // A web session is no panel session.
    const web = await owner.browser.get('/admin/orgs');
    assert.equal(web.statusCode, 302);
    assert.equal(web.headers.location, '/admin/login');
  });

  test('the audit log names the organization actions and filters them', async () => {
    const t = ctx();
    const { browser } = await signedInAdmin(t);
    const owner = await person(t);
    await createOrg(owner);
    const audit = await browser.get('/admin/audit?group=organizations');
    assert.equal(audit.statusCode, 200);
    assert.match(audit.body, /Organization created/);
    assert.doesNotMatch(audit.body, /Signed in</);
  });

  test('the account area has an Organizations page listing them', async () => {
    const t = ctx();
    const owner = await person(t);
    const org = await createOrg(owner, newSlug('area'), 'Area Org');
    const page = await owner.browser.get('/profile/organizations');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`<a href="/orgs/${org.slug}">Area Org</a>`));
    assert.match(page.body, /href="\/profile\/organizations" data-area="organizations" aria-current="page"/);
  });

  test('the data export lists the user’s organizations', async () => {
    const t = ctx();
    const owner = await person(t);
    const org = await createOrg(owner, newSlug('export'), 'Exported');
    await owner.confirmPassword();
    const exported = await owner.json('GET', '/user/export');
    assert.equal(exported.statusCode, 200);
    assert.deepEqual(exported.json().organizations, [
      {
        id: org.id,
        slug: org.slug,
        name: 'Exported',
        role: 'owner',
        joined_at: exported.json().organizations[0].joined_at,
      },
    ]);
  });
});
