import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { sendJson } from '../helpers/account.ts';
import { describeEachDialect, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { enableTwoFactor } from '../helpers/two-factor.ts';

const work = mkdtempSync(join(tmpdir(), 'gatehouse-owner-2fa-'));
after(() => rmSync(work, { recursive: true, force: true }));
const PASSWORD = 'tangerine-orbit-42';
let counter = 0;

/** An admin made by `make:admin` (the first one is the owner), signed in to the panel. */
async function madeAdmin(t: TestApp, name: string) {
  counter++;
  const email = `${name.toLowerCase()}.${counter}.${Date.now()}@example.com`;
  const made = await runCliInProcess(
    ['make:admin', '--name', name, '--email', email, '--password', PASSWORD],
    {
      DATABASE_URL: t.databaseUrl,
      APP_KEY: TEST_APP_KEY,
      APP_URL: 'http://gatehouse.test',
      STORAGE_PATH: join(work, 'storage'),
    },
    work,
  );
  assert.equal(made.code, 0, made.stderr);
  const row = await t.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
  const browser = new Browser(t.app);
  await browser.get('/admin/login');
  const login = await browser.post('/admin/login', { email, password: PASSWORD });
  assert.equal(login.statusCode, 302, login.body);
  await browser.get('/admin');
  return { id: row.id, email, browser };
}

const isOn = async (t: TestApp, userId: number) =>
  (await t.services.auth.twoFactor.state(userId)).status === 'on';

/**
 * docs/security.md "The owner": no other admin can turn off the owner's two-factor either (403 JSON, the
 * refusal shown on a form; no button on the owner's page), and turning off another user's two-factor asks
 * the acting admin for their own password (counted like every password check). The audit: a non-owner
 * admin could turn off the owner's two-factor — with ADMIN_REQUIRE_TWO_FACTOR that also locks the owner
 * out of the panel — without retyping a password.
 */
await describeEachDialect('the owner’s two-factor, and the admin’s password for turning one off', (ctx) => {
  test('another admin cannot turn off the owner’s two-factor; a user’s needs the acting admin’s password', async () => {
    const t = ctx();
    const owner = await madeAdmin(t, 'Founder');
    const other = await madeAdmin(t, 'Colleague');
    await enableTwoFactor(t, owner);

    const page = await other.browser.get(`/admin/users/${owner.id}`);
    assert.doesNotMatch(page.body, new RegExp(`action="/admin/users/${owner.id}/two-factor/disable"`));
    const refused = await sendJson(other.browser, 'POST', `/admin/users/${owner.id}/two-factor/disable`, {
      password: PASSWORD,
    });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.match(refused.json().message, /owner/);
    const form = await other.browser.post(`/admin/users/${owner.id}/two-factor/disable`, {
      password: PASSWORD,
    });
    assert.equal(form.statusCode, 302);
    const shown = await other.browser.get(form.headers.location as string);
    assert.match(shown.body, /This is the owner(&#39;|&#x27;|')s account; its two-factor authentication/);
    assert.equal(await isOn(t, owner.id), true, 'the owner keeps two-factor');

    // Any other user: the button asks for the acting admin's password, and the route wants it.
    const user = await t.createUser();
    await enableTwoFactor(t, user);
    const userPage = await other.browser.get(`/admin/users/${user.id}`);
    assert.match(userPage.body, new RegExp(`action="/admin/users/${user.id}/two-factor/disable"`));
    const bare = await sendJson(other.browser, 'POST', `/admin/users/${user.id}/two-factor/disable`);
    assert.equal(bare.statusCode, 422, bare.body);
    const wrong = await sendJson(other.browser, 'POST', `/admin/users/${user.id}/two-factor/disable`, {
      password: 'not my password',
    });
    assert.equal(wrong.statusCode, 422, wrong.body);
    assert.equal(await isOn(t, user.id), true, 'nothing turned off without the password');
    const done = await sendJson(other.browser, 'POST', `/admin/users/${user.id}/two-factor/disable`, {
      password: PASSWORD,
    });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(await isOn(t, user.id), false);
    const failures = await t.db
      .selectFrom('audit_log')
      .select('event')
      .where('subject_id', '=', other.id)
      .where('event', '=', 'user.password_check_failed')
      .execute();
    assert.equal(failures.length, 1, 'the wrong password counted as a password check');
  });
});
