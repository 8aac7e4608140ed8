import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { Adapter } from 'oidc-provider';
import { sha256Hex } from '../../src/lib/crypto.ts';
import type { OauthModelRow } from '../../src/oauth/models.table.ts';
import { createStorageAdapter } from '../../src/oauth/storage-adapter.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';

/**
 * oidc-provider's storage adapter (src/oauth/storage-adapter.ts) against its interface
 * (example/my_adapter.js in the library) on SQLite, PostgreSQL and MariaDB: what the library relies on,
 * plus our own promises — ids stored only as hashes, and `consume` won by exactly one of many
 * concurrent requests.
 */
class InvalidGrant extends Error {}

function adapterFor(
  app: TestApp,
  kind: string,
  binding: string | null = null,
  lost: OauthModelRow[] = [],
): Adapter {
  return createStorageAdapter(
    {
      db: app.db,
      clock: app.services.clock,
      sessionBinding: () => binding,
      onRaceLost: async (row) => {
        lost.push(row);
      },
      invalidGrant: (description) => new InvalidGrant(description),
    },
    kind,
  );
}

const id = () => randomBytes(32).toString('base64url');

await describeEachDialect('oauth storage adapter contract', (ctx) => {
  test('upsert then find gives the payload back with its id; a second upsert replaces it', async () => {
    const tokens = adapterFor(ctx(), 'RefreshToken');
    const jti = id();
    const grantId = id();
    await tokens.upsert(
      jti,
      { jti, kind: 'RefreshToken', accountId: '7', clientId: 'c1', grantId, scope: 'openid' },
      60,
    );
    const found = await tokens.find(jti);
    assert.equal(found?.jti, jti);
    assert.equal(found?.accountId, '7');
    assert.equal(found?.scope, 'openid');
    assert.equal(found?.consumed, undefined);
    await tokens.upsert(
      jti,
      { jti, kind: 'RefreshToken', accountId: '7', clientId: 'c1', grantId, scope: 'openid email' },
      60,
    );
    assert.equal((await tokens.find(jti))?.scope, 'openid email');
    assert.equal(await tokens.find(id()), undefined, 'an unknown id is not found');
  });

  test('the table holds the SHA-256 of every id, never the id: a dump yields no code, token or cookie', async () => {
    const { db } = ctx();
    const sessions = adapterFor(ctx(), 'Session', 'b'.repeat(64));
    const jti = id();
    const uid = id();
    await sessions.upsert(jti, { jti, uid, kind: 'Session', accountId: '3' }, 60);
    const row = await db
      .selectFrom('oauth_models')
      .selectAll()
      .where('kind', '=', 'Session')
      .where('id_hash', '=', sha256Hex(jti))
      .executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(jti), 'the session id appears nowhere in its row');
    assert.equal(row.uid_hash, sha256Hex(uid));
    assert.equal(
      row.session_binding,
      'b'.repeat(64),
      'a session row records the Gatehouse session it follows',
    );
    assert.equal(row.account_id, '3');
  });

  test('findByUid finds a session, findByUserCode a device code; other kinds stay apart', async () => {
    const sessions = adapterFor(ctx(), 'Session');
    const devices = adapterFor(ctx(), 'DeviceCode');
    const jti = id();
    const uid = id();
    await sessions.upsert(jti, { jti, uid, kind: 'Session', accountId: '4' }, 60);
    assert.equal((await sessions.findByUid(uid))?.accountId, '4');
    assert.equal(await sessions.findByUid(id()), undefined);
    const device = id();
    await devices.upsert(
      device,
      { jti: device, kind: 'DeviceCode', userCode: 'BCDF-GHJK', clientId: 'c' },
      60,
    );
    assert.equal(
      (await devices.findByUserCode('BCDF-GHJK'))?.jti,
      device,
      'a device code is written back by its id',
    );
    assert.equal(
      await adapterFor(ctx(), 'AccessToken').find(jti),
      undefined,
      'the same id of another kind is another object',
    );
  });

  test('an expired object is not found', async () => {
    const codes = adapterFor(ctx(), 'AuthorizationCode');
    const jti = id();
    await codes.upsert(jti, { jti, kind: 'AuthorizationCode', clientId: 'c' }, 1);
    assert.ok(await codes.find(jti));
    await ctx()
      .db.updateTable('oauth_models')
      .set({ expires_at: Date.now() - 1 })
      .where('id_hash', '=', sha256Hex(jti))
      .execute();
    assert.equal(await codes.find(jti), undefined);
  });

  test('consume marks the object consumed; of 10 concurrent consumes exactly one wins', async () => {
    const lost: OauthModelRow[] = [];
    const codes = adapterFor(ctx(), 'AuthorizationCode', null, lost);
    const grants = adapterFor(ctx(), 'Grant');
    const grantId = id();
    await grants.upsert(grantId, { jti: grantId, kind: 'Grant', accountId: '1', clientId: 'c' }, 60);
    const jti = id();
    await codes.upsert(jti, { jti, kind: 'AuthorizationCode', clientId: 'c', grantId }, 60);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => codes.consume(jti)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'one request redeems the code');
    const refused = results.filter((r) => r.status === 'rejected');
    assert.equal(refused.length, 9);
    for (const r of refused) assert.ok((r as PromiseRejectedResult).reason instanceof InvalidGrant);
    assert.ok(lost.length >= 1, 'the losers are reported');
    assert.equal(await grants.find(grantId), undefined, 'a lost race revokes the grant like any replay');
    assert.equal(await codes.find(jti), undefined, 'and everything issued from it, the code included');
  });

  test('a consumed object is found marked consumed', async () => {
    const tokens = adapterFor(ctx(), 'RefreshToken');
    const jti = id();
    await tokens.upsert(jti, { jti, kind: 'RefreshToken', clientId: 'c' }, 60);
    await tokens.consume(jti);
    assert.ok((await tokens.find(jti))?.consumed);
    await assert.rejects(tokens.consume(jti), InvalidGrant, 'consumed once only');
  });

  test('revokeByGrantId removes the objects of that kind issued from the grant, and only those', async () => {
    const tokens = adapterFor(ctx(), 'RefreshToken');
    const codes = adapterFor(ctx(), 'AuthorizationCode');
    const grantId = id();
    const other = id();
    const [a, b, c, d] = [id(), id(), id(), id()];
    await tokens.upsert(a, { jti: a, kind: 'RefreshToken', grantId }, 60);
    await tokens.upsert(b, { jti: b, kind: 'RefreshToken', grantId }, 60);
    await tokens.upsert(c, { jti: c, kind: 'RefreshToken', grantId: other }, 60);
    await codes.upsert(d, { jti: d, kind: 'AuthorizationCode', grantId }, 60);
    await tokens.revokeByGrantId(grantId);
    assert.equal(await tokens.find(a), undefined);
    assert.equal(await tokens.find(b), undefined);
    assert.ok(await tokens.find(c), 'another grant keeps its tokens');
    assert.ok(await codes.find(d), 'the library revokes each kind itself');
    await codes.revokeByGrantId(grantId);
    assert.equal(await codes.find(d), undefined);
  });

  test('destroy removes one object', async () => {
    const sessions = adapterFor(ctx(), 'Session');
    const jti = id();
    await sessions.upsert(jti, { jti, uid: id(), kind: 'Session' }, 60);
    await sessions.destroy(jti);
    assert.equal(await sessions.find(jti), undefined);
    await sessions.destroy(jti);
  });
});
