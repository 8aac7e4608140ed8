import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { sendJson } from '../helpers/account.ts';
import { describeEachDialect, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { runCliInProcess } from '../helpers/cli.ts';

const work = mkdtempSync(join(tmpdir(), 'gatehouse-owner-'));
after(() => rmSync(work, { recursive: true, force: true }));
let counter = 0;

/** gatehouse <args> against the test app's database, as the operator runs it on the server. */
function cli(t: TestApp, args: string[]) {
  return runCliInProcess(
    args,
    {
      DATABASE_URL: t.databaseUrl,
      APP_KEY: TEST_APP_KEY,
      APP_URL: 'http://gatehouse.test',
      STORAGE_PATH: join(work, 'storage'),
    },
    work,
  );
}

/** An admin made by `make:admin`, then signed in to the panel. */
async function madeAdmin(t: TestApp, name: string) {
  counter++;
  const email = `${name.toLowerCase()}.${counter}.${Date.now()}@example.com`;
  const password = 'tangerine-orbit-42';
  const made = await cli(t, ['make:admin', '--name', name, '--email', email, '--password', password]);
  assert.equal(made.code, 0, made.stderr);
  const row = await t.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
  const browser = new Browser(t.app);
  await browser.get('/admin/login');
  const login = await browser.post('/admin/login', { email, password });
  assert.equal(login.statusCode, 302, login.body);
  await browser.get('/admin');
  return { id: row.id, email, browser };
}

const flags = (t: TestApp, id: number) =>
  t.db
    .selectFrom('users')
    .select(['disabled_at', 'can_access_panel'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

/**
 * docs/security.md "Owner": the first admin `make:admin` created is the owner; no other admin can withdraw
 * its panel access or disable it in the panel (403 JSON, a flash error on the page, no buttons); the
 * CLI can (`admin:revoke`).
 */
await describeEachDialect('the owner', (ctx) => {
  test('owner: no other admin can disable the owner or withdraw its panel access in the panel; the CLI can', async () => {
    const t = ctx();
    const owner = await madeAdmin(t, 'Founder');
    const other = await madeAdmin(t, 'Colleague');
    const third = await madeAdmin(t, 'Helper');
    const before = await flags(t, owner.id);
    assert.equal(before.disabled_at, null);
    assert.ok(before.can_access_panel);

    // The panel does not offer the buttons on the owner's page…
    const page = await other.browser.get(`/admin/users/${owner.id}`);
    assert.equal(page.statusCode, 200);
    for (const action of ['disable', 'panel-access/withdraw', 'delete']) {
      assert.doesNotMatch(page.body, new RegExp(`action="/admin/users/${owner.id}/${action}"`), action);
    }
    // …but does on another admin's.
    const thirdPage = await other.browser.get(`/admin/users/${third.id}`);
    assert.match(thirdPage.body, new RegExp(`action="/admin/users/${third.id}/disable"`));
    assert.match(thirdPage.body, new RegExp(`action="/admin/users/${third.id}/panel-access/withdraw"`));

    // …and refuses the requests themselves: 403 for JSON clients…
    const disable = await sendJson(other.browser, 'POST', `/admin/users/${owner.id}/disable`);
    assert.equal(disable.statusCode, 403, disable.body);
    assert.match(disable.json().message, /owner/);
    const withdraw = await sendJson(other.browser, 'POST', `/admin/users/${owner.id}/panel-access/withdraw`);
    assert.equal(withdraw.statusCode, 403, withdraw.body);
    assert.match(withdraw.json().message, /command line/);
    // …a flash error on the page for a form post.
    await other.browser.get(`/admin/users/${owner.id}`);
    const form = await other.browser.post(`/admin/users/${owner.id}/disable`);
    assert.equal(form.statusCode, 302);
    const shown = await other.browser.get(form.headers.location as string);
    assert.match(shown.body, /This is the owner(&#39;|&#x27;|')s account; it cannot be disabled\./);

    assert.deepEqual(await flags(t, owner.id), before, 'nothing changed');
    assert.equal((await owner.browser.get('/admin')).statusCode, 200, 'the owner still opens the panel');
    const audited = await t.db
      .selectFrom('audit_log')
      .select('event')
      .where('subject_id', '=', owner.id)
      .where('event', 'in', ['admin.user.disabled', 'admin.user.panel_revoked'])
      .execute();
    assert.equal(audited.length, 0);

    // Other admins are not protected: the rule is about the owner only.
    const thirdWithdrawn = await sendJson(
      other.browser,
      'POST',
      `/admin/users/${third.id}/panel-access/withdraw`,
    );
    assert.equal(thirdWithdrawn.statusCode, 200, thirdWithdrawn.body);

    // The operator at the command line can.
    const revoked = await cli(t, ['admin:revoke', owner.email]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(Boolean((await flags(t, owner.id)).can_access_panel), false);
  });
});
