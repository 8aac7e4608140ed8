import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertJsonError, bearer, tokenId } from '../helpers/api.ts';
import { type TestApp, twoInstances } from '../helpers/app.ts';
import { availableDialects } from '../helpers/databases.ts';

/**
 * Two instances over ONE database (docs/guides/several-instances.md): whatever one issues, the other accepts; whatever one
 * revokes, the other refuses on the very next request — an answer an instance keeps in memory is
 * retired by any commit, its own or the other's (auth/cache/sqlite-freshness.ts).
 */
for (const { name, skip } of await availableDialects()) {
  describe(`two app instances over one ${name} database`, { skip }, () => {
    const apps = twoInstances(name, { env: { API_RATE_LIMIT: '0' } });

    const status = async (t: TestApp, token: string, url = '/api/user') =>
      (await t.app.inject({ url, headers: bearer(token) })).statusCode;

    test('a token issued on one instance works on the other', async () => {
      const user = await apps.one.createUser();
      const token = await apps.one.issueToken(user.email, user.password, { abilities: ['posts:read'] });
      assert.equal(await status(apps.two, token), 200);
      assert.equal(await status(apps.two, token, '/api/posts'), 200);
      const listed = (await apps.two.app.inject({ url: '/api/tokens', headers: bearer(token) })).json().data;
      assert.deepEqual(
        listed.map((t: { id: number }) => t.id),
        [tokenId(token)],
      );
    });

    test('revoked on one instance (current, by id, by name, all) → refused on the other at once', async () => {
      const user = await apps.one.createUser();
      const keeper = await apps.two.issueToken(user.email, user.password, { device_name: 'keeper' });

      const current = await apps.one.issueToken(user.email, user.password);
      assert.equal(await status(apps.two, current), 200);
      const del = await apps.one.app.inject({
        method: 'DELETE',
        url: '/api/tokens/current',
        headers: bearer(current),
      });
      assert.equal(del.statusCode, 204);
      assertJsonError(await apps.two.app.inject({ url: '/api/user', headers: bearer(current) }), 401);

      const byId = await apps.one.issueToken(user.email, user.password);
      assert.equal(await status(apps.one, byId), 200);
      const delId = await apps.two.app.inject({
        method: 'DELETE',
        url: `/api/tokens/${tokenId(byId)}`,
        headers: bearer(keeper),
      });
      assert.equal(delId.statusCode, 204);
      assert.equal(await status(apps.one, byId), 401);

      const named = await apps.two.issueToken(user.email, user.password, { device_name: 'phone' });
      assert.equal(await status(apps.one, named), 200);
      await apps.one.app.inject({ method: 'DELETE', url: '/api/tokens?name=phone', headers: bearer(keeper) });
      assert.equal(await status(apps.two, named), 401);

      const another = await apps.one.issueToken(user.email, user.password);
      assert.equal(await status(apps.two, another), 200);
      await apps.two.app.inject({ method: 'DELETE', url: '/api/tokens', headers: bearer(keeper) });
      assert.equal(await status(apps.one, another), 401);
      assert.equal(await status(apps.one, keeper), 401);
    });

    test('disabling the user (on either side) stops the token everywhere', async () => {
      const user = await apps.one.createUser();
      const token = await apps.two.issueToken(user.email, user.password);
      assert.equal(await status(apps.one, token), 200);
      await apps.one.db
        .updateTable('users')
        .set({ disabled_at: Date.now() })
        .where('id', '=', user.id)
        .execute();
      assert.equal(await status(apps.one, token), 401);
      assert.equal(await status(apps.two, token), 401);
    });
  });
}
