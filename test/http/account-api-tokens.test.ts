import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { auditEvents, sendJson, signedInBrowser } from '../helpers/account.ts';
import { countRows, describeApp } from '../helpers/app.ts';

const clock = fakeClock(Date.UTC(2026, 7, 1, 9));

await describeApp(
  'account: API tokens (docs/guides/account.md)',
  (ctx) => {
    test('JSON: create (201, plaintext once), list, edit abilities, revoke; the token works at once and stops at once', async () => {
      const t = ctx();
      const { user, browser } = await signedInBrowser(t);
      const created = await sendJson(browser, 'POST', '/user/api-tokens', {
        name: 'deploy bot',
        abilities: ['posts:read'],
        expires_in: 3600,
      });
      assert.equal(created.statusCode, 201);
      const body = created.json();
      assert.match(body.token, /^\d+\|[A-Za-z0-9]{40}[0-9a-f]{8}$/);
      assert.deepEqual(Object.keys(body.accessToken).sort(), [
        'abilities',
        'created_at',
        'expires_at',
        'id',
        'name',
      ]);
      assert.deepEqual(body.accessToken.abilities, ['posts:read']);
      assert.equal(body.accessToken.expires_at, new Date(clock.now() + 3600_000).toISOString());
      const bearer = { authorization: `Bearer ${body.token}` };
      assert.equal((await t.app.inject({ url: '/api/posts', headers: bearer })).statusCode, 200);
      const write = await t.app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: bearer,
        payload: { title: 'x', body: 'y' },
      });
      assert.equal(write.statusCode, 403);

      const list = await browser.get('/user/api-tokens', { accept: 'application/json' });
      assert.equal(list.json().data.length, 1);
      assert.ok(!list.body.includes(body.token.split('|')[1]), 'never the secret again');

      const id = body.accessToken.id;
      const edited = await sendJson(browser, 'PUT', `/user/api-tokens/${id}`, {
        abilities: ['posts:read', 'posts:write'],
      });
      assert.equal(edited.statusCode, 204);
      const again = await t.app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: bearer,
        payload: { title: 'x', body: 'y' },
      });
      assert.equal(again.statusCode, 201, 'the new ability holds on the next request');

      const revoked = await sendJson(browser, 'DELETE', `/user/api-tokens/${id}`);
      assert.equal(revoked.statusCode, 204);
      assert.equal((await t.app.inject({ url: '/api/user', headers: bearer })).statusCode, 401);
      assert.deepEqual(await auditEvents(t, user.id, 'token.'), [
        'token.created',
        'token.updated',
        'token.revoked',
      ]);
    });

    test("validation and other users' ids: 422 and 404, nothing changes", async () => {
      const t = ctx();
      const { browser } = await signedInBrowser(t);
      const { browser: other } = await signedInBrowser(t);
      const before = await countRows(t.db, 'personal_access_tokens');
      const bad = await sendJson(browser, 'POST', '/user/api-tokens', {
        name: '',
        abilities: ['*'],
        expires_in: 0,
      });
      assert.equal(bad.statusCode, 422);
      assert.deepEqual(Object.keys(bad.json().errors).sort(), ['abilities', 'expires_in', 'name']);
      assert.deepEqual(bad.json().errors.abilities, ['The selected abilities is invalid.']);
      assert.equal(
        (await sendJson(browser, 'POST', '/user/api-tokens', { name: 'x', abilities: 'posts:read' }))
          .statusCode,
        201,
      );
      assert.equal(await countRows(t.db, 'personal_access_tokens'), before + 1);
      const mine = (await browser.get('/user/api-tokens', { accept: 'application/json' })).json().data[0].id;
      assert.equal(
        (await sendJson(other, 'PUT', `/user/api-tokens/${mine}`, { abilities: [] })).statusCode,
        404,
      );
      assert.equal((await sendJson(other, 'DELETE', `/user/api-tokens/${mine}`)).statusCode, 404);
      assert.equal((await sendJson(other, 'DELETE', '/user/api-tokens/abc')).statusCode, 404);
      assert.equal(
        (await sendJson(other, 'DELETE', '/user/api-tokens/99999999999999999999')).statusCode,
        404,
      );
      assert.equal(await countRows(t.db, 'personal_access_tokens'), before + 1);
    });

    test('forms: the plaintext is shown once with a copy button; edit and revoke through _method', async () => {
      const t = ctx();
      const { browser } = await signedInBrowser(t);
      await browser.get('/profile');
      const body = new URLSearchParams({
        _token: browser.csrf!,
        name: 'laptop script',
        expires_in: String(7 * 86400),
      });
      body.append('abilities', 'posts:read');
      body.append('abilities', 'posts:write');
      const created = browser.absorb(
        await t.app.inject({
          method: 'POST',
          url: '/user/api-tokens',
          payload: body.toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookieHeader() },
        }),
      );
      assert.equal(created.statusCode, 302);
      const page = await browser.get('/profile');
      const plain = /<ul class="token-secret" id="new-token"><li><code>([^<]+)<\/code>/.exec(page.body)?.[1];
      assert.ok(plain, 'the plaintext is on the page once');
      assert.match(page.body, /data-copy="new-token"/);
      assert.ok(!(await browser.get('/profile')).body.includes(plain), 'and never again');
      const id = plain.split('|')[0];
      const edit = await browser.post(`/user/api-tokens/${id}`, { _method: 'PUT', abilities: 'posts:read' });
      assert.equal(edit.statusCode, 302);
      const row = await t.db
        .selectFrom('personal_access_tokens')
        .select('abilities')
        .where('id', '=', Number(id))
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(row.abilities), ['posts:read']);
      const failed = await browser.post('/user/api-tokens', { name: '' });
      assert.equal(failed.statusCode, 422);
      assert.match(failed.body, /The name field is required\./);
      const gone = await browser.post(`/user/api-tokens/${id}`, { _method: 'DELETE' });
      assert.equal(gone.statusCode, 302);
      assert.equal(
        (await t.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${plain}` } })).statusCode,
        401,
      );
    });

    test('guests get 401 / 302', async () => {
      const t = ctx();
      assert.equal(
        (await t.app.inject({ url: '/user/api-tokens', headers: { accept: 'application/json' } })).statusCode,
        401,
      );
      assert.equal((await t.app.inject({ url: '/user/api-tokens' })).statusCode, 302);
    });
  },
  { overrides: { clock } },
);
