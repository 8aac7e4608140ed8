import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { sendJson, signedInAdmin } from '../helpers/account.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import type { Browser } from '../helpers/browser-session.ts';
import { signedInBrowser } from '../helpers/oidc.ts';

/**
 * The panel's /admin/clients (docs/guides/admin-panel.md "OpenID Connect clients"): list, register,
 * show, edit, rotate the secret, delete — through the CLI's use cases and rules, behind the admin guard
 * and CSRF, audited; a secret shown once; every bad input a 422 at its field, never a 5xx.
 */
const stored = (t: TestApp, clientId: string) =>
  t.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
const audits = (t: TestApp, event: string) =>
  t.db.selectFrom('audit_log').select(['actor_id', 'details']).where('event', '=', event).execute();
const secretOn = (body: string) => /id="client-secret"><li><code[^>]*>([^<]+)<\/code>/.exec(body)?.[1];

await describeApp('oauth panel clients', (ctx) => {
  let t: TestApp;
  let panel: Browser;
  let adminId: number;
  before(async () => {
    t = ctx();
    const signedIn = await signedInAdmin(t);
    panel = signedIn.browser;
    adminId = signedIn.admin.id;
  });

  test('register a confidential client by form: its page shows the secret once; audited', async () => {
    await panel.get('/admin/clients/new');
    const created = await panel.post('/admin/clients', {
      name: 'Grafana',
      redirect_uris: 'https://grafana.example/login/generic_oauth\r\nhttp://127.0.0.1:3000/cb',
      post_logout_redirect_uris: 'https://grafana.example/login',
      grant_types: 'authorization_code',
      client_type: 'confidential',
    });
    assert.equal(created.statusCode, 302, created.body.slice(0, 500));
    const location = String(created.headers.location);
    const clientId = /^\/admin\/clients\/([A-Za-z0-9]+)$/.exec(location)?.[1];
    assert.ok(clientId, location);
    const page = await panel.get(location);
    assert.equal(page.statusCode, 200);
    const secret = secretOn(page.body);
    assert.ok(secret && secret.length >= 40, 'the secret is on the page');
    const row = await stored(t, clientId);
    assert.equal(row?.secret_hash, sha256Hex(secret), 'only its hash is stored');
    assert.deepEqual(JSON.parse(row!.redirect_uris), [
      'https://grafana.example/login/generic_oauth',
      'http://127.0.0.1:3000/cb',
    ]);
    assert.deepEqual(JSON.parse(row!.grant_types), ['authorization_code']);
    assert.equal(secretOn((await panel.get(location)).body), undefined, 'never again');
    const audit = (await audits(t, 'oauth.client.created')).find(
      (a) => JSON.parse(a.details!).client_id === clientId,
    );
    assert.equal(audit?.actor_id, adminId);
    const list = await panel.get('/admin/clients');
    assert.ok(list.body.includes(`href="/admin/clients/${clientId}"`));
    assert.match(list.body, /<a href="\/admin\/clients" aria-current="page">/, 'the nav names the page');
  });

  test('refused input comes back at its field, nothing stored; JSON 422 with errors', async () => {
    const before = (await t.db.selectFrom('oauth_clients').select('id').execute()).length;
    await panel.get('/admin/clients/new');
    const refused = await panel.post('/admin/clients', {
      name: '',
      redirect_uris: 'javascript:alert(1)\nhttps://*.example/cb',
      post_logout_redirect_uris: 'https://rp.example/#frag',
      grant_types: 'password',
    });
    assert.equal(refused.statusCode, 422);
    for (const id of [
      'field-name-error',
      'field-redirect_uris-error',
      'field-post_logout_redirect_uris-error',
    ]) {
      assert.ok(refused.body.includes(`id="${id}"`), id);
    }
    assert.ok(refused.body.includes('grant-types-error'));
    assert.ok(refused.body.includes('javascript:alert(1)'), 'what was typed comes back');
    assert.match(refused.body, /contains \*; register every URI exactly/);
    const json = await sendJson(panel, 'POST', '/admin/clients', {
      name: ['not', 'text'],
      redirect_uris: [1, 'https://ok.example/cb'],
      grant_types: { a: 1 },
      trusted: 'yes',
    });
    assert.equal(json.statusCode, 422, json.body);
    assert.ok(json.json().errors.name && json.json().errors.redirect_uris, json.body);
    assert.equal((await t.db.selectFrom('oauth_clients').select('id').execute()).length, before);
  });

  test('public client by JSON: no secret; rotating is refused; show answers the CLI shape', async () => {
    const created = await sendJson(panel, 'POST', '/admin/clients', {
      name: 'SPA',
      redirect_uris: ['https://spa.example/callback'],
      client_type: 'public',
      trusted: true,
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.equal(body.client_secret, null);
    assert.equal(body.public, true);
    assert.equal(body.trusted, true);
    const shown = await sendJson(panel, 'GET', `/admin/clients/${body.client_id}`);
    assert.equal(shown.json().client_id, body.client_id);
    assert.equal('client_secret' in shown.json(), false);
    const rotate = await sendJson(panel, 'POST', `/admin/clients/${body.client_id}/rotate-secret`);
    assert.equal(rotate.statusCode, 409);
  });

  test('edit, rotate (new secret once, old hash gone), delete — each audited', async () => {
    const created = await sendJson(panel, 'POST', '/admin/clients', {
      name: 'Wiki',
      redirect_uris: ['https://wiki.example/cb'],
    });
    const { client_id: id, client_secret: first } = created.json();
    const page = `/admin/clients/${id}`;
    await panel.get(page);
    const badEdit = await panel.post(page, { name: 'Wiki', redirect_uris: 'file:///etc/passwd' });
    assert.equal(badEdit.statusCode, 422);
    assert.ok(badEdit.body.includes('id="field-redirect_uris-error"'));
    const edited = await panel.post(page, { name: 'Team Wiki', redirect_uris: 'https://wiki.example/oidc' });
    assert.equal(edited.statusCode, 302);
    assert.equal((await stored(t, id))?.name, 'Team Wiki');
    assert.deepEqual(JSON.parse((await stored(t, id))!.redirect_uris), ['https://wiki.example/oidc']);
    assert.equal((await audits(t, 'oauth.client.updated')).length, 1);

    await panel.get(page);
    const rotated = await panel.post(`${page}/rotate-secret`);
    assert.equal(rotated.statusCode, 302);
    const next = secretOn((await panel.get(page)).body);
    assert.ok(next && next !== first);
    assert.equal((await stored(t, id))?.secret_hash, sha256Hex(next));
    assert.equal((await audits(t, 'oauth.client.secret_rotated')).length, 1);

    await panel.get(page);
    const deleted = await panel.post(`${page}/delete`);
    assert.equal(deleted.statusCode, 302);
    assert.equal(deleted.headers.location, '/admin/clients');
    assert.equal(await stored(t, id), undefined);
    assert.equal((await panel.get(page)).statusCode, 404);
    assert.equal((await audits(t, 'oauth.client.deleted')).length, 1);
  });

  test('refusals: no CSRF 419, unknown or odd ids 404, a guest to the login, a user without panel access', async () => {
    const created = await sendJson(panel, 'POST', '/admin/clients', {
      name: 'Kept',
      redirect_uris: ['https://kept.example/cb'],
    });
    const id = created.json().client_id as string;
    const forged = await panel.post(`/admin/clients/${id}/delete`, { _token: 'forged' });
    assert.equal(forged.statusCode, 419);
    for (const odd of ['nope', '%00', 'a'.repeat(300), '..%2Fx']) {
      await panel.get('/admin/clients');
      assert.equal((await panel.post(`/admin/clients/${odd}/delete`)).statusCode, 404, odd);
      assert.equal((await panel.get(`/admin/clients/${odd}`)).statusCode, 404, odd);
    }
    const guest = await t.app.inject({ url: '/admin/clients' });
    assert.equal(guest.statusCode, 302);
    assert.equal(guest.headers.location, '/admin/login');
    const user = await t.createUser();
    const browser = await signedInBrowser(t, user.email, user.password);
    const refused = await browser.get('/admin/clients');
    assert.notEqual(refused.statusCode, 200);
    assert.ok(await stored(t, id), 'nothing refused deleted anything');
  });

  test('a user’s page in the panel lists the apps they allowed, linked to each client', async () => {
    const user = await t.createUser();
    const created = await sendJson(panel, 'POST', '/admin/clients', {
      name: 'Allowed <App>',
      redirect_uris: ['https://allowed.example/cb'],
    });
    const id = created.json().client_id as string;
    const none = await panel.get(`/admin/users/${user.id}`);
    assert.ok(!none.body.includes(`/admin/clients/${id}`));
    await t.services.oauth.consents.remember(user.id, id, ['openid', 'email'], { now: Date.now() });
    const page = await panel.get(`/admin/users/${user.id}`);
    const section = /<section class="panel" id="connected-apps">[\s\S]*?<\/section>/.exec(page.body)?.[0];
    assert.ok(section, 'a Connected apps panel');
    assert.ok(section.includes('Allowed &lt;App&gt;'));
    assert.ok(section.includes('openid email'));
    assert.ok(section.includes(`href="/admin/clients/${id}"`));
  });
});
