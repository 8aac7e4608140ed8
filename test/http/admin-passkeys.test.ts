import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordAudit } from '../../src/audit/audit.ts';
import { insertPasskey } from '../../src/passkeys/passkeys.repository.ts';
import { auditEvents, sendJson, signedInAdmin, signedInBrowser } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { latestMail } from '../helpers/login-providers.ts';
import { enableTwoFactor } from '../helpers/two-factor.ts';

let planted = 0;

/** A passkey row for `userId` (what a registration stores; no browser needed to list or remove one). */
async function plantPasskey(t: TestApp, userId: number, name: string, lastUsedAt: number | null = null) {
  planted++;
  const now = t.services.clock.now();
  return insertPasskey(t.db, {
    user_id: userId,
    credential_hash: `${String(planted).padStart(8, '0')}${'a'.repeat(56)}`,
    credential_id: `cred-${planted}-${userId}`,
    public_key: 'pk',
    counter: 0,
    transports: '[]',
    user_handle: `h${planted}`,
    name,
    created_at: now,
    updated_at: now,
    last_used_at: lastUsedAt,
  });
}

const passkeyNames = async (t: TestApp, userId: number) =>
  (await t.db.selectFrom('passkeys').select('name').where('user_id', '=', userId).execute()).map(
    (r) => r.name,
  );

/**
 * docs/guides/admin-panel.md "Passkeys": a user's page lists their passkeys (name, added, last used) and an
 * admin removes a lost or suspect one with their own password — audited with the admin as actor, the user
 * mailed, their browsers left signed in; never the owner's passkeys by another admin. The users list shows
 * two-factor and passkeys and filters by them (EXISTS on every dialect).
 */
await describeEachDialect('the panel: a user’s passkeys', (ctx) => {
  test('listed on the user page; removed with the admin’s password, audited, mailed; not the owner’s', async () => {
    const t = ctx();
    const { admin: owner, browser: ownerBrowser } = await signedInAdmin(t, 'Founder');
    // The owner is the subject of the earliest admin.created row (admin/owner.ts), as make:admin writes it.
    await recordAudit(t.db, 'admin.created', { now: t.services.clock.now() }, owner.id);
    const { admin, browser } = await signedInAdmin(t, 'Colleague');
    const user = await t.createUser({ name: 'Grace Hopper' });
    const signedIn = await signedInBrowser(t, { user });
    const phone = await plantPasskey(t, user.id, 'Grace’s phone', t.services.clock.now() - 3_600_000);
    await plantPasskey(t, user.id, 'YubiKey <5C>');

    const page = await browser.get(`/admin/users/${user.id}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<section class="panel" id="passkeys">/);
    assert.ok(
      page.body.includes('Grace’s phone') && page.body.includes('YubiKey &lt;5C&gt;'),
      'names, escaped',
    );
    assert.match(page.body, /Last used/);
    assert.match(page.body, /1 hour ago/);
    assert.ok(page.body.includes(`action="/admin/users/${user.id}/passkeys/${phone}/delete"`));
    assert.match(page.body, new RegExp(`id="remove-passkey-${phone}-password"[^>]*type="password"`));

    const remove = (body: object, who = browser, id: number | string = phone, target = user.id) =>
      sendJson(who, 'POST', `/admin/users/${target}/passkeys/${id}/delete`, body);
    // No CSRF token: 419, nothing removed.
    const forged = await t.app.inject({
      method: 'POST',
      url: `/admin/users/${user.id}/passkeys/${phone}/delete`,
      headers: { accept: 'application/json', cookie: browser.cookieHeader() },
      payload: { password: admin.password },
    });
    assert.equal(forged.statusCode, 419);
    assert.equal((await remove({ password: 'not my password' })).statusCode, 422);
    assert.equal((await remove({})).statusCode, 422);
    assert.deepEqual((await passkeyNames(t, user.id)).sort(), ['Grace’s phone', 'YubiKey <5C>']);
    for (const bad of ['abc', '0', '99999999', '1e3'])
      assert.equal((await remove({ password: admin.password }, browser, bad)).statusCode, 404);

    const done = await remove({ password: admin.password });
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.json().message, /passkey was removed/);
    assert.deepEqual(await passkeyNames(t, user.id), ['YubiKey <5C>']);
    assert.equal((await remove({ password: admin.password })).statusCode, 404, 'gone');
    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('event', '=', 'admin.passkey.deleted')
      .where('subject_id', '=', user.id)
      .execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.actor_id, admin.id);
    assert.ok((await auditEvents(t, user.id)).includes('admin.passkey.deleted'));
    const mail = await latestMail(t, user.email, 'passkey-notice');
    assert.ok(mail, 'the user is told');
    assert.equal((await signedIn.browser.get('/dashboard')).statusCode, 200, 'their browsers stay signed in');

    // A form post lands back on the page with the message.
    const form = await browser.post(`/admin/users/${user.id}/passkeys/${phone}/delete`, {
      password: admin.password,
    });
    assert.equal(form.statusCode, 404);

    // The owner's passkeys are the owner's: no button for another admin, 403 for a request.
    const ownerKey = await plantPasskey(t, owner.id, 'Founder’s key');
    const ownerPage = await browser.get(`/admin/users/${owner.id}`);
    assert.ok(ownerPage.body.includes('Founder’s key'));
    assert.ok(!ownerPage.body.includes(`/passkeys/${ownerKey}/delete`));
    const refused = await remove({ password: admin.password }, browser, ownerKey, owner.id);
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(await passkeyNames(t, owner.id), ['Founder’s key']);
    // The owner may remove their own.
    await ownerBrowser.get(`/admin/users/${owner.id}`);
    assert.equal(
      (await remove({ password: owner.password }, ownerBrowser, ownerKey, owner.id)).statusCode,
      200,
    );
  });

  test('the users list: two-factor and passkey columns, and filters by them', async () => {
    const t = ctx();
    const { browser } = await signedInAdmin(t, 'Lister');
    const stamp = Date.now();
    const keyed = await t.createUser({ name: `Keyed ${stamp}` });
    const secured = await t.createUser({ name: `Secured ${stamp}` });
    const plain = await t.createUser({ name: `Plain ${stamp}` });
    await plantPasskey(t, keyed.id, 'Laptop');
    await plantPasskey(t, keyed.id, 'Phone');
    await enableTwoFactor(t, secured);
    const names = (body: string) =>
      [`Keyed ${stamp}`, `Secured ${stamp}`, `Plain ${stamp}`].filter((n) => body.includes(`>${n}</a>`));

    const all = await browser.get(`/admin/users?q=${stamp}`);
    assert.equal(all.statusCode, 200);
    assert.match(all.body, /<th scope="col">Two-factor<\/th>/);
    assert.match(all.body, /<th scope="col">Passkeys<\/th>/);
    assert.deepEqual(names(all.body).sort(), [`Keyed ${stamp}`, `Plain ${stamp}`, `Secured ${stamp}`]);
    const rowOf = (name: string) => all.body.slice(all.body.indexOf(`>${name}</a>`)).split('</tr>')[0]!;
    assert.match(rowOf(`Keyed ${stamp}`), /data-label="Passkeys"[^>]*><div>2</);
    assert.match(rowOf(`Secured ${stamp}`), /data-label="Two-factor"[^>]*><div><span class="badge[^"]*">On</);
    assert.match(rowOf(`Plain ${stamp}`), /data-label="Two-factor"[^>]*><div><span class="muted">Off</);

    const filtered = async (filter: string) =>
      names((await browser.get(`/admin/users?q=${stamp}&filter=${filter}`)).body);
    assert.deepEqual(await filtered('passkeys'), [`Keyed ${stamp}`]);
    assert.deepEqual((await filtered('no_passkeys')).sort(), [`Plain ${stamp}`, `Secured ${stamp}`]);
    assert.deepEqual(await filtered('two_factor'), [`Secured ${stamp}`]);
    assert.deepEqual((await filtered('no_two_factor')).sort(), [`Keyed ${stamp}`, `Plain ${stamp}`]);
    const unknown = await browser.get(`/admin/users?q=${stamp}&filter=%00nope`);
    assert.equal(unknown.statusCode, 200, 'an unknown filter lists everyone');
    assert.equal(names(unknown.body).length, 3);
    for (const lang of ['de', 'fr', 'es']) {
      const page = await browser.get(`/admin/users?q=${stamp}&filter=passkeys&lang=${lang}`);
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, /admin\.users\./, `no raw keys in ${lang}`);
    }
    assert.ok(plain.id > 0);
  });
});
