import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertJsonError, bearer, tokenId } from '../helpers/api.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { availableDialects } from '../helpers/databases.ts';

/**
 * Two instances over ONE database (CONTRACT §8): whatever one issues, the other accepts; whatever one
 * revokes, the other refuses on the very next request — an answer an instance keeps in memory is
 * retired by any commit, its own or the other's (db/fast-path/changes.ts).
 */
for (const { name, skip } of await availableDialects()) {
  describe(`two app instances over one ${name} database`, { skip }, () => {
    let one: TestApp;
    let two: TestApp;

    before(async () => {
      one = await createTestApp(name, { env: { API_RATE_LIMIT: '0' } });
      const database = one.config.database;
      const databaseUrl = database.dialect === 'sqlite' ? `sqlite:${database.filename}` : database.url;
      two = await createTestApp(name, { env: { API_RATE_LIMIT: '0' }, databaseUrl });
    });
    after(async () => {
      await two?.close();
      await one?.close();
    });

    const status = async (t: TestApp, token: string, url = '/api/user') =>
      (await t.app.inject({ url, headers: bearer(token) })).statusCode;

    test('a token issued on one instance works on the other', async () => {
      const user = await one.createUser();
      const token = await one.issueToken(user.email, user.password, { abilities: ['posts:read'] });
      assert.equal(await status(two, token), 200);
      assert.equal(await status(two, token, '/api/posts'), 200);
      const listed = (await two.app.inject({ url: '/api/tokens', headers: bearer(token) })).json().data;
      assert.deepEqual(
        listed.map((t: { id: number }) => t.id),
        [tokenId(token)],
      );
    });

    test('revoked on one instance (current, by id, by name, all) → refused on the other at once', async () => {
      const user = await one.createUser();
      const keeper = await two.issueToken(user.email, user.password, { device_name: 'keeper' });

      const current = await one.issueToken(user.email, user.password);
      assert.equal(await status(two, current), 200);
      const del = await one.app.inject({
        method: 'DELETE',
        url: '/api/tokens/current',
        headers: bearer(current),
      });
      assert.equal(del.statusCode, 204);
      assertJsonError(await two.app.inject({ url: '/api/user', headers: bearer(current) }), 401);

      const byId = await one.issueToken(user.email, user.password);
      assert.equal(await status(one, byId), 200);
      const delId = await two.app.inject({
        method: 'DELETE',
        url: `/api/tokens/${tokenId(byId)}`,
        headers: bearer(keeper),
      });
      assert.equal(delId.statusCode, 204);
      assert.equal(await status(one, byId), 401);

      const named = await two.issueToken(user.email, user.password, { device_name: 'phone' });
      assert.equal(await status(one, named), 200);
      await one.app.inject({ method: 'DELETE', url: '/api/tokens?name=phone', headers: bearer(keeper) });
      assert.equal(await status(two, named), 401);

      const another = await one.issueToken(user.email, user.password);
      assert.equal(await status(two, another), 200);
      await two.app.inject({ method: 'DELETE', url: '/api/tokens', headers: bearer(keeper) });
      assert.equal(await status(one, another), 401);
      assert.equal(await status(one, keeper), 401);
    });

    test('disabling the user (on either side) stops the token everywhere', async () => {
      const user = await one.createUser();
      const token = await two.issueToken(user.email, user.password);
      assert.equal(await status(one, token), 200);
      await one.db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', user.id).execute();
      assert.equal(await status(one, token), 401);
      assert.equal(await status(two, token), 401);
    });
  });
}
