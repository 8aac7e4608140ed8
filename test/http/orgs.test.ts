import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sendJson } from '../helpers/account.ts';
import { describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { createOrg, join, newSlug, person, rolesIn } from '../helpers/orgs.ts';

/**
 * docs/guides/organizations.md through HTTP, on every dialect: creating (verified users, slug rules),
 * listing, one organization, renaming, deleting (password confirmation), the current organization, and
 * GET /api/user's `organizations`. Roles, invitations and what non-members see have their own files.
 */
await describeApp('organizations', (ctx) => {
  const events = async (organizationId: number) =>
    (await ctx().db.selectFrom('audit_log').select(['event', 'details']).orderBy('id').execute())
      .filter((row) => row.details !== null && JSON.parse(row.details).organization_id === organizationId)
      .map((row) => row.event);

  test('a verified user creates an organization and owns it: 201 with it, listed, audited', async () => {
    const t = ctx();
    const ada = await person(t);
    const slug = newSlug('acme');
    const created = await ada.json('POST', '/orgs', { name: 'Acme & Co', slug });
    assert.equal(created.statusCode, 201, created.body);
    const org = created.json();
    assert.deepEqual(org, { id: org.id, slug, name: 'Acme & Co', role: 'owner' });
    const list = await ada.json('GET', '/orgs');
    assert.deepEqual(list.json(), { data: [org] });
    assert.deepEqual(await rolesIn(t, org.id), { [ada.user.id]: 'owner' });
    assert.deepEqual(await events(org.id), ['org.created']);
    const detail = await ada.json('GET', `/orgs/${slug}`);
    assert.deepEqual(detail.json(), {
      id: org.id,
      slug,
      name: 'Acme & Co',
      role: 'owner',
      abilities: ['*'],
      members: [{ id: ada.user.id, name: ada.user.name, email: ada.user.email, role: 'owner' }],
      invitations: [],
    });
  });

  test('an unverified user cannot create one: 403 as a verified route (JSON), the notice (page)', async () => {
    const t = ctx();
    const unverified = await person(t, { verified: false });
    const slug = newSlug();
    const refused = await unverified.json('POST', '/orgs', { name: 'Nope', slug });
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(refused.json(), { message: 'Your email address is not verified.' });
    const page = await unverified.browser.post('/orgs', { name: 'Nope', slug });
    assert.equal(page.statusCode, 302);
    assert.equal(page.headers.location, '/email/verify');
    const listed = await unverified.browser.get('/orgs');
    assert.match(listed.body, /Verify your email address to create an organization/);
    assert.equal(
      await t.db.selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst(),
      undefined,
    );
  });

  test('slug and name rules: 422 as Laravel words them, and a taken slug', async () => {
    const t = ctx();
    const ada = await person(t);
    const bad = await ada.json('POST', '/orgs', { name: '', slug: 'Not A Slug' });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json(), {
      message: 'The name field is required. (and 1 more error)',
      errors: { name: ['The name field is required.'], slug: ['The slug field format is invalid.'] },
    });
    for (const slug of ['a', 'x'.repeat(64), 'under_score', 'ümlaut', 'dot.ted', ' spaced', 'UPPER']) {
      const refused = await ada.json('POST', '/orgs', { name: 'X', slug });
      assert.equal(refused.statusCode, 422, slug);
    }
    const ok = await ada.json('POST', '/orgs', { name: 'Two', slug: `2-${newSlug()}`.slice(0, 63) });
    assert.equal(ok.statusCode, 201, ok.body);
    const slug = newSlug('taken');
    await createOrg(ada, slug);
    const bob = await person(t);
    const taken = await bob.json('POST', '/orgs', { name: 'Other', slug });
    assert.equal(taken.statusCode, 422);
    assert.deepEqual(taken.json(), {
      message: 'The slug has already been taken.',
      errors: { slug: ['The slug has already been taken.'] },
    });
    const longName = await ada.json('POST', '/orgs', { name: 'n'.repeat(256), slug: newSlug() });
    assert.deepEqual(longName.json().errors, {
      name: ['The name field must not be greater than 255 characters.'],
    });
  });

  test('rename: owners and admins, the slug stays; 204, audited', async () => {
    const t = ctx();
    const owner = await person(t);
    const org = await createOrg(owner);
    const renamed = await owner.json('PUT', `/orgs/${org.slug}`, { name: 'New Name' });
    assert.equal(renamed.statusCode, 204, renamed.body);
    assert.equal((await owner.json('GET', `/orgs/${org.slug}`)).json().name, 'New Name');
    assert.deepEqual(await events(org.id), ['org.created', 'org.updated']);
    const invalid = await owner.json('PUT', `/orgs/${org.slug}`, { name: 'line\nbreak' });
    assert.equal(invalid.statusCode, 422);
  });

  test('delete: owners, after a password confirmation (423 before); memberships and invitations go', async () => {
    const t = ctx();
    const owner = await person(t);
    const admin = await person(t);
    const org = await createOrg(owner);
    await join(t, owner, org.slug, admin, 'admin');
    const unconfirmed = await owner.json('DELETE', `/orgs/${org.slug}`);
    assert.equal(unconfirmed.statusCode, 423);
    assert.deepEqual(unconfirmed.json(), { message: 'Password confirmation required.' });
    const form = await owner.browser.post(
      `/orgs/${org.slug}`,
      { _method: 'DELETE' },
      { referer: `http://localhost/orgs/${org.slug}` },
    );
    assert.equal(form.statusCode, 302);
    assert.equal(form.headers.location, '/user/confirm-password');
    await admin.confirmPassword();
    assert.equal(
      (await admin.json('DELETE', `/orgs/${org.slug}`)).statusCode,
      403,
      'an admin is not an owner',
    );
    await owner.confirmPassword();
    const deleted = await owner.json('DELETE', `/orgs/${org.slug}`);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.deepEqual(await rolesIn(t, org.id), {});
    assert.equal((await owner.json('GET', `/orgs/${org.slug}`)).statusCode, 404);
    assert.deepEqual(await events(org.id), [
      'org.created',
      'org.invitation.sent',
      'org.invitation.accepted',
      'org.member.removed',
      'org.member.removed',
      'org.deleted',
    ]);
  });

  test('deleting an account: organizations it alone owned go too; from the others it is removed', async () => {
    const t = ctx();
    const leaving = await person(t);
    const other = await person(t);
    const solo = await createOrg(leaving, newSlug('solo'));
    const shared = await createOrg(leaving, newSlug('shared'));
    const theirs = await createOrg(other, newSlug('theirs'));
    await join(t, leaving, solo.slug, other, 'admin');
    await join(t, leaving, shared.slug, other, 'owner');
    await join(t, other, theirs.slug, leaving, 'member');
    const deleted = await leaving.json('DELETE', '/user', { password: leaving.user.password });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal(
      (await other.json('GET', `/orgs/${solo.slug}`)).statusCode,
      404,
      'the solo-owned one is gone',
    );
    assert.deepEqual(await rolesIn(t, solo.id), {});
    assert.deepEqual(await rolesIn(t, shared.id), { [other.user.id]: 'owner' });
    assert.deepEqual(await rolesIn(t, theirs.id), { [other.user.id]: 'owner' });
    assert.deepEqual(await events(solo.id), [
      'org.created',
      'org.invitation.sent',
      'org.invitation.accepted',
      'org.member.removed',
      'org.member.removed',
      'org.deleted',
    ]);
    assert.deepEqual((await events(shared.id)).slice(-1), ['org.member.removed']);
  });

  test('GET /api/user lists the organizations with the role, for a token and for an SPA session', async () => {
    const t = ctx();
    const ada = await person(t);
    const bob = await person(t);
    const zeta = await createOrg(ada, newSlug('zeta'), 'Zeta');
    const alpha = await createOrg(bob, newSlug('alpha'), 'Alpha');
    await join(t, bob, alpha.slug, ada, 'admin');
    const token = await t.issueToken(ada.user.email, ada.user.password);
    const api = await t.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } });
    assert.equal(api.statusCode, 200);
    assert.deepEqual(api.json().organizations, [
      { id: alpha.id, slug: alpha.slug, name: 'Alpha', role: 'admin' },
      { id: zeta.id, slug: zeta.slug, name: 'Zeta', role: 'owner' },
    ]);
    // The next request after a change sees it (the per-request lookup is kept only while nothing changes).
    assert.equal((await ada.json('DELETE', `/orgs/${alpha.slug}/members/me`)).statusCode, 204);
    const after = await t.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } });
    assert.deepEqual(after.json().organizations, [
      { id: zeta.id, slug: zeta.slug, name: 'Zeta', role: 'owner' },
    ]);
    const nobody = await t.createUser();
    const bare = await t.app.inject({
      url: '/api/user',
      headers: { authorization: `Bearer ${await t.issueToken(nobody.email, nobody.password)}` },
    });
    assert.deepEqual(bare.json().organizations, []);
  });

  test('PUT /user/current-org: one of yours (204, shown on the pages); anything else is the same 422', async () => {
    const t = ctx();
    const ada = await person(t);
    const bob = await person(t);
    const mine = await createOrg(ada, newSlug('mine'), 'Mine');
    const other = await createOrg(ada, newSlug('other'), 'Other');
    const theirs = await createOrg(bob);
    const set = await ada.json('PUT', '/user/current-org', { organization_id: other.id });
    assert.equal(set.statusCode, 204, set.body);
    const page = await ada.browser.get('/orgs');
    assert.match(page.body, new RegExp(`<option value="${other.id}" selected>Other</option>`));
    assert.match(page.body, new RegExp(`<option value="${mine.id}">Mine</option>`));
    const foreign = await ada.json('PUT', '/user/current-org', { organization_id: theirs.id });
    const unknown = await ada.json('PUT', '/user/current-org', { organization_id: 2_000_000_000 });
    assert.equal(foreign.statusCode, 422);
    assert.equal(foreign.body, unknown.body);
    assert.deepEqual(foreign.json().errors, {
      organization_id: ['The selected organization id is invalid.'],
    });
    const form = await ada.browser.post('/user/current-org', {
      _method: 'PUT',
      organization_id: String(mine.id),
    });
    assert.equal(form.statusCode, 302);
    assert.equal(form.headers.location, `/orgs/${mine.slug}`);
    assert.match((await ada.browser.get(`/orgs/${mine.slug}`)).body, /You are now working in Mine\./);
  });

  test('pages: create by form, then the organization page; CSRF is required on every form', async () => {
    const t = ctx();
    const ada = await person(t);
    const slug = newSlug('form');
    const noToken = await new Browser(t.app).post('/orgs', { name: 'X', slug });
    assert.equal(noToken.statusCode, 419, 'no session, no token: refused before anything else');
    const forged = await ada.browser.post('/orgs', { _token: 'forged', name: 'By form', slug });
    assert.equal(forged.statusCode, 419);
    const failed = await ada.browser.post('/orgs', { name: 'By form', slug: 'Bad Slug' });
    assert.equal(failed.statusCode, 422);
    assert.match(failed.body, /<title>1 error: Organizations/);
    assert.match(failed.body, /value="By form"/, 'the input is kept');
    const created = await ada.browser.post('/orgs', { name: 'By <form>', slug });
    assert.equal(created.statusCode, 302);
    assert.equal(created.headers.location, `/orgs/${slug}`);
    const page = await ada.browser.get(`/orgs/${slug}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Organization created\./);
    assert.match(page.body, /<h1>By &lt;form&gt;<\/h1>/);
    assert.ok(!page.body.includes('<form>'), 'the name is escaped');
    const json = await sendJson(
      ada.browser,
      'PUT',
      `/orgs/${slug}`,
      { name: 'Renamed' },
      { 'x-csrf-token': 'forged' },
    );
    assert.equal(json.statusCode, 419);
  });
});
