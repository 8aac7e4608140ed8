import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionKey } from '../../src/auth/sessions/sessions.ts';
import { countRows, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser, webLogin as loginThroughForm } from '../helpers/browser-session.ts';

type TestUser = Awaited<ReturnType<TestApp['createUser']>>;

async function signedInAdmin(t: TestApp) {
  const admin = await t.createUser({ panelAccess: true, name: 'Panel Admin' });
  const browser = new Browser(t.app, { 'user-agent': 'admin-tests' });
  await browser.get('/admin/login');
  assert.equal(
    (await browser.post('/admin/login', { email: admin.email, password: admin.password })).statusCode,
    302,
  );
  await browser.get('/admin');
  return { admin, browser };
}

function webLogin(t: TestApp, user: TestUser, remember = false) {
  return loginThroughForm(t.app, user, {
    remember,
    headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0) Firefox/131.0' },
  });
}

const api = (t: TestApp, token: string) =>
  t.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } });

async function lastAudit(t: TestApp, event: string) {
  return t.db
    .selectFrom('audit_log')
    .selectAll()
    .where('event', '=', event)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** An audit row of the acting admin, about `subject`, from the test client's address, just now. */
function assertAudited(row: Awaited<ReturnType<typeof lastAudit>>, adminId: number, subjectId: number) {
  assert.ok(row, 'an audit row was written');
  assert.equal(row.actor_id, adminId);
  assert.equal(row.subject_id, subjectId);
  assert.equal(row.ip_address, '127.0.0.1');
  assert.ok(Math.abs(row.created_at - Date.now()) < 60_000);
}

await describeApp('admin panel actions', (ctx) => {
  test('revoke one token: that token gets 401 on its next request, the others keep working', async () => {
    const t = ctx();
    const { admin, browser } = await signedInAdmin(t);
    const user = await t.createUser();
    const [first, second] = [
      await t.issueToken(user.email, user.password),
      await t.issueToken(user.email, user.password),
    ];
    const firstId = Number(first!.split('|')[0]);
    const page = await browser.get(`/admin/users/${user.id}`);
    assert.match(page.body, new RegExp(`action="/admin/users/${user.id}/tokens/${firstId}/revoke"`));

    const revoked = await browser.post(`/admin/users/${user.id}/tokens/${firstId}/revoke`);
    assert.equal(revoked.statusCode, 302);
    assert.equal(revoked.headers.location, `/admin/users/${user.id}#tokens`);
    assert.equal((await api(t, first!)).statusCode, 401);
    assert.equal((await api(t, second!)).statusCode, 200);
    const row = await lastAudit(t, 'admin.token.revoked');
    assertAudited(row, admin.id, user.id);
    assert.deepEqual(JSON.parse(row!.details!), { token_id: firstId });
    const after = await browser.get(`/admin/users/${user.id}`);
    assert.match(after.body, /The token was revoked\./, 'a status message after the redirect');
    assert.doesNotMatch(
      (await browser.get(`/admin/users/${user.id}`)).body,
      /The token was revoked/,
      'shown once',
    );

    // A token id of another user, or one already gone: 404, nothing changes.
    const other = await t.createUser();
    const foreign = await t.issueToken(other.email, other.password);
    const foreignId = Number(foreign.split('|')[0]);
    assert.equal((await browser.post(`/admin/users/${user.id}/tokens/${foreignId}/revoke`)).statusCode, 404);
    assert.equal((await browser.post(`/admin/users/${user.id}/tokens/${firstId}/revoke`)).statusCode, 404);
    assert.equal((await browser.post(`/admin/users/${user.id}/tokens/abc/revoke`)).statusCode, 404);
    assert.equal((await api(t, foreign)).statusCode, 200);
  });

  test('revoke all tokens: every one of them fails on its next request', async () => {
    const t = ctx();
    const { admin, browser } = await signedInAdmin(t);
    const user = await t.createUser();
    const tokens = [
      await t.issueToken(user.email, user.password),
      await t.issueToken(user.email, user.password),
    ];
    const response = await browser.post(
      `/admin/users/${user.id}/tokens/revoke-all`,
      {},
      { accept: 'application/json' },
    );
    assert.equal(response.statusCode, 200);
    assert.match(response.json().message, /2 tokens of .* were revoked\./);
    for (const token of tokens) assert.equal((await api(t, token)).statusCode, 401);
    const row = await lastAudit(t, 'admin.token.revoked');
    assertAudited(row, admin.id, user.id);
    assert.deepEqual(JSON.parse(row!.details!), { scope: 'all', count: 2 });
  });

  test('end one web session, then end all (remember-me included)', async () => {
    const t = ctx();
    const { admin, browser } = await signedInAdmin(t);
    const user = await t.createUser();
    const laptop = await webLogin(t, user);
    const phone = await webLogin(t, user, true);
    const page = await browser.get(`/admin/users/${user.id}`);
    assert.match(page.body, /Firefox · Windows/);
    const laptopKey = sessionKey(laptop.cookies.get('gatehouse_session')!);
    assert.match(page.body, new RegExp(`/sessions/${laptopKey}/end`));

    assert.equal((await browser.post(`/admin/users/${user.id}/sessions/${laptopKey}/end`)).statusCode, 302);
    const bounced = await laptop.get('/dashboard');
    assert.equal(bounced.statusCode, 302);
    assert.equal(bounced.headers.location, '/login');
    assert.equal((await phone.get('/dashboard')).statusCode, 200);
    assertAudited(await lastAudit(t, 'admin.session.ended'), admin.id, user.id);
    assert.equal((await browser.post(`/admin/users/${user.id}/sessions/${laptopKey}/end`)).statusCode, 404);
    assert.equal((await browser.post(`/admin/users/${user.id}/sessions/not-a-key/end`)).statusCode, 404);
    // The admin's own session key is not a web session of this user.
    const adminKey = sessionKey(browser.cookies.get('gatehouse_admin_session')!);
    assert.equal((await browser.post(`/admin/users/${admin.id}/sessions/${adminKey}/end`)).statusCode, 404);

    const ended = await browser.post(`/admin/users/${user.id}/sessions/end-all`);
    assert.equal(ended.statusCode, 302);
    assert.equal((await phone.get('/dashboard')).statusCode, 302);
    phone.cookies.delete('gatehouse_session');
    assert.equal(
      (await phone.get('/dashboard')).statusCode,
      302,
      'the remember-me cookie no longer restores',
    );
    const row = await lastAudit(t, 'admin.session.ended');
    assertAudited(row, admin.id, user.id);
    assert.deepEqual(JSON.parse(row!.details!), { scope: 'all', count: 1, remember_tokens: 1 });
  });

  test('mark e-mail verified: once, audited once', async () => {
    const t = ctx();
    const { admin, browser } = await signedInAdmin(t);
    const user = await t.createUser({ verified: false });
    assert.match((await browser.get(`/admin/users/${user.id}`)).body, /Mark as verified/);
    assert.equal((await browser.post(`/admin/users/${user.id}/verify`)).statusCode, 302);
    const row = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.email_verified_at !== null);
    assertAudited(await lastAudit(t, 'admin.user.verified'), admin.id, user.id);
    const audits = await countRows(t.db, 'audit_log');
    await browser.post(`/admin/users/${user.id}/verify`);
    assert.match((await browser.get(`/admin/users/${user.id}`)).body, /was already verified/);
    assert.equal(await countRows(t.db, 'audit_log'), audits, 'no second audit row');
  });

  test('disable: login refused, sessions, remember-me and tokens dead at once; enable restores login', async () => {
    const t = ctx();
    const { admin, browser } = await signedInAdmin(t);
    const user = await t.createUser();
    const token = await t.issueToken(user.email, user.password);
    const web = await webLogin(t, user, true);
    assert.equal((await web.get('/dashboard')).statusCode, 200);

    const disabled = await browser.post(`/admin/users/${user.id}/disable`);
    assert.equal(disabled.statusCode, 302);
    assert.equal((await api(t, token)).statusCode, 401, 'token dead on the next request');
    assert.equal((await web.get('/dashboard')).statusCode, 302, 'session dead on the next request');
    web.cookies.delete('gatehouse_session');
    assert.equal((await web.get('/dashboard')).statusCode, 302, 'remember-me dead');
    const retry = new Browser(t.app);
    await retry.get('/login');
    const login = await retry.post('/login', { email: user.email, password: user.password });
    assert.equal(login.statusCode, 422);
    assert.match(login.body, /These credentials do not match our records\./);
    const apiLogin = await t.app.inject({
      method: 'POST',
      url: '/api/tokens',
      payload: { email: user.email, password: user.password, device_name: 'x' },
    });
    assert.equal(apiLogin.statusCode, 401);
    for (const table of ['sessions', 'remember_tokens', 'personal_access_tokens'] as const) {
      const rows = await t.db.selectFrom(table).select('user_id').where('user_id', '=', user.id).execute();
      assert.equal(rows.length, 0, `${table} of the disabled user are deleted`);
    }
    const row = await lastAudit(t, 'admin.user.disabled');
    assertAudited(row, admin.id, user.id);
    assert.deepEqual(JSON.parse(row!.details!), { sessions: 1, remember_tokens: 1, tokens: 1 });
    assert.match(
      (await browser.get(`/admin/users/${user.id}`)).body,
      /is disabled: their sessions and API tokens no longer work/,
    );

    assert.equal((await browser.post(`/admin/users/${user.id}/enable`)).statusCode, 302);
    assertAudited(await lastAudit(t, 'admin.user.enabled'), admin.id, user.id);
    const again = new Browser(t.app);
    await again.get('/login');
    assert.equal(
      (await again.post('/login', { email: user.email, password: user.password })).statusCode,
      302,
    );
    assert.equal((await api(t, token)).statusCode, 401, 'enabling does not bring old tokens back');
  });

  test('grant and withdraw panel access; never for oneself', async () => {
    const t = ctx();
    const { admin, browser } = await signedInAdmin(t);
    const user = await t.createUser();
    assert.equal((await browser.post(`/admin/users/${user.id}/panel-access/grant`)).statusCode, 302);
    assertAudited(await lastAudit(t, 'admin.user.panel_granted'), admin.id, user.id);
    const colleague = new Browser(t.app);
    await colleague.get('/admin/login');
    assert.equal(
      (await colleague.post('/admin/login', { email: user.email, password: user.password })).statusCode,
      302,
    );
    assert.equal((await colleague.get('/admin')).statusCode, 200);

    assert.equal((await browser.post(`/admin/users/${user.id}/panel-access/withdraw`)).statusCode, 302);
    assertAudited(await lastAudit(t, 'admin.user.panel_revoked'), admin.id, user.id);
    assert.equal((await colleague.get('/admin')).statusCode, 403);

    const audits = await countRows(t.db, 'audit_log');
    for (const action of ['panel-access/withdraw', 'panel-access/grant', 'disable']) {
      const self = await browser.post(`/admin/users/${admin.id}/${action}`);
      assert.equal(self.statusCode, 302, action);
      const page = await browser.get(`/admin/users/${admin.id}`);
      assert.match(
        page.body,
        /role="alert">You cannot (change your own panel access|disable your own account)/,
        action,
      );
    }
    const json = await browser.post(`/admin/users/${admin.id}/disable`, {}, { accept: 'application/json' });
    assert.equal(json.statusCode, 403);
    assert.deepEqual(json.json(), { message: 'You cannot disable your own account.' });
    assert.equal(await countRows(t.db, 'audit_log'), audits, 'refusals change and record nothing');
    const me = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', admin.id)
      .executeTakeFirstOrThrow();
    assert.equal(me.can_access_panel, 1);
    assert.equal(me.disabled_at, null);
    assert.equal((await browser.get('/admin')).statusCode, 200);
  });

  test('every panel action refuses a missing or foreign CSRF token (419) and changes nothing', async () => {
    const t = ctx();
    const { browser } = await signedInAdmin(t);
    const user = await t.createUser({ verified: false, panelAccess: true });
    const token = await t.issueToken(user.email, user.password);
    const tokenId = token.split('|')[0];
    const web = await webLogin(t, user);
    const key = sessionKey(web.cookies.get('gatehouse_session')!);
    const actions = [
      'verify',
      'disable',
      'enable',
      'panel-access/grant',
      'panel-access/withdraw',
      `tokens/${tokenId}/revoke`,
      'tokens/revoke-all',
      `sessions/${key}/end`,
      'sessions/end-all',
    ];
    const audits = await countRows(t.db, 'audit_log');
    for (const action of actions) {
      const url = `/admin/users/${user.id}/${action}`;
      assert.equal((await browser.post(url, { _token: '' })).statusCode, 419, url);
      assert.equal(
        (await browser.post(url, { _token: web.csrf! })).statusCode,
        419,
        `${url} with a web token`,
      );
      const json = await browser.post(url, { _token: 'forged' }, { accept: 'application/json' });
      assert.equal(json.statusCode, 419);
      assert.deepEqual(json.json(), { message: 'CSRF token mismatch.' });
    }
    assert.equal(await countRows(t.db, 'audit_log'), audits);
    assert.equal((await api(t, token)).statusCode, 200);
    assert.equal((await web.get('/dashboard')).statusCode, 200);
    const row = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.email_verified_at, null);
    assert.equal(row.can_access_panel, 1);
    // The token in a header works like the form field.
    const viaHeader = await t.app.inject({
      method: 'POST',
      url: `/admin/users/${user.id}/verify`,
      headers: { cookie: browser.cookieHeader(), 'x-csrf-token': browser.csrf! },
    });
    assert.equal(viaHeader.statusCode, 302);
  });

  test('actions on users that do not exist are 404s, never 500s', async () => {
    const t = ctx();
    const { browser } = await signedInAdmin(t);
    for (const url of [
      '/admin/users/999999/disable',
      '/admin/users/0/verify',
      '/admin/users/99999999999/enable',
      '/admin/users/1e3/verify',
    ]) {
      assert.equal((await browser.post(url)).statusCode, 404, url);
    }
    assert.equal((await browser.get('/admin/users/999999')).statusCode, 404);
    assert.equal((await browser.get('/admin/users/abc')).statusCode, 404);
  });
});
