import assert from 'node:assert/strict';
import { setUserFlag } from '../../../src/admin/panel.repository.ts';
import {
  countLiveTokens,
  deleteExpiredTokens,
  deleteTokens,
  findTokenByHash,
  findTokenById,
  findTokenWithUserById,
  insertToken,
  listTokensOfUser,
  touchToken,
  updateTokenAbilities,
} from '../../../src/auth/tokens/access-tokens.repository.ts';
import type { Db } from '../../../src/db/schema.ts';
import { insertPost, listPostsOfUser } from '../../../src/posts/posts.repository.ts';
import { toUser } from '../../../src/users/user.ts';
import { joinedUser } from '../../../src/users/users.repository.ts';
import { aUser, type ContractSuite, covers, hash64 } from './contract.ts';

function aToken(
  db: Db,
  userId: number,
  fields: { name?: string; expires?: number | null; created?: number } = {},
) {
  const created = fields.created ?? Date.now();
  return insertToken(db, {
    user_id: userId,
    name: fields.name ?? 'device',
    token: hash64('token'),
    abilities: '["*"]',
    last_used_at: null,
    expires_at: fields.expires ?? null,
    created_at: created,
    updated_at: created,
  });
}

/** access-tokens.repository.ts and posts.repository.ts. */
export const tokensContract: ContractSuite = (ctx) => {
  covers(
    [findTokenById, findTokenByHash, findTokenWithUserById, joinedUser],
    'a token is found by id and by the exact hash of its secret, and by id with its user in one read',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      const token = await aToken(db, user.id);
      assert.equal(typeof token.id, 'number');
      assert.deepEqual(await findTokenById(db, token.id), token);
      assert.deepEqual(await findTokenByHash(db, token.token), token);
      assert.equal(await findTokenByHash(db, token.token.toUpperCase()), undefined, 'no case folding');
      assert.equal(await findTokenById(db, token.id + 100_000), undefined);
      const joined = (await findTokenWithUserById(db, token.id))!;
      assert.deepEqual(
        Object.fromEntries(Object.keys(token).map((key) => [key, joined[key as keyof typeof token]])),
        token,
      );
      assert.deepEqual(joinedUser(joined), toUser(user));
      assert.equal(await findTokenWithUserById(db, token.id + 100_000), undefined);
    },
  );

  covers([listTokensOfUser], "a user's tokens, newest first, and only theirs", async () => {
    const { db } = ctx();
    const [user, other] = [await aUser(db), await aUser(db)];
    const first = await aToken(db, user.id);
    const second = await aToken(db, user.id);
    await aToken(db, other.id);
    assert.deepEqual(
      (await listTokensOfUser(db, user.id)).map((t) => t.id),
      [second.id, first.id],
    );
  });

  covers([touchToken], 'last use is written at most once a minute, whoever races', async () => {
    const { db } = ctx();
    const user = await aUser(db);
    const token = await aToken(db, user.id);
    const now = 10_000_000;
    await Promise.all(Array.from({ length: 10 }, (_, i) => touchToken(db, token.id, now + i, now - 60_000)));
    const first = (await findTokenById(db, token.id))!.last_used_at!;
    assert.ok(first >= now && first < now + 10, String(first));
    await touchToken(db, token.id, now + 30_000, now + 30_000 - 60_000);
    assert.equal((await findTokenById(db, token.id))!.last_used_at, first, 'within the minute: unchanged');
    await touchToken(db, token.id, first + 60_000, first);
    assert.equal((await findTokenById(db, token.id))!.last_used_at, first + 60_000);
  });

  covers([deleteTokens], 'tokens are deleted by id, by name or all, only the given user’s', async () => {
    const { db } = ctx();
    const [user, other] = [await aUser(db), await aUser(db)];
    const one = await aToken(db, user.id, { name: 'one' });
    await aToken(db, user.id, { name: 'two' });
    await aToken(db, user.id, { name: 'two' });
    const theirs = await aToken(db, other.id, { name: 'one' });
    assert.equal(await deleteTokens(db, other.id, { id: one.id }), 0, 'not their token');
    assert.equal(await deleteTokens(db, user.id, { id: one.id }), 1);
    assert.equal(await deleteTokens(db, user.id, { name: 'two' }), 2);
    await aToken(db, user.id);
    assert.equal(await deleteTokens(db, user.id), 1);
    assert.deepEqual(
      (await listTokensOfUser(db, other.id)).map((t) => t.id),
      [theirs.id],
    );
  });

  covers(
    [deleteExpiredTokens, countLiveTokens],
    'expiry: by its own expires_at and by the global lifetime; live tokens of disabled users are not counted',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      const disabled = await aUser(db);
      const now = 50_000_000;
      const cutoffs = { now, createdAfter: now - 1_000_000 };
      const before = await countLiveTokens(db, cutoffs);
      const live = await aToken(db, user.id, { created: now - 10, expires: now + 1 });
      const forever = await aToken(db, user.id, { created: now - 10, expires: null });
      const ownExpired = await aToken(db, user.id, { created: now - 10, expires: now });
      const tooOld = await aToken(db, user.id, { created: now - 1_000_000, expires: null });
      await aToken(db, disabled.id, { created: now - 10 });
      await setUserFlag(db, disabled.id, { disabled: true }, now);
      assert.equal(await countLiveTokens(db, cutoffs), before + 2);
      assert.equal(
        await countLiveTokens(db, { now, createdAfter: null }),
        (await countLiveTokens(db, cutoffs)) + 1,
        'no global lifetime: the old one is live too',
      );
      assert.ok((await deleteExpiredTokens(db, cutoffs)) >= 2);
      const left = (await listTokensOfUser(db, user.id)).map((t) => t.id);
      assert.deepEqual(left.sort(), [live.id, forever.id].sort());
      assert.ok(!left.includes(ownExpired.id) && !left.includes(tooOld.id));
    },
  );

  covers([updateTokenAbilities], 'abilities are replaced only on the owner’s token', async () => {
    const { db } = ctx();
    const [user, other] = [await aUser(db), await aUser(db)];
    const token = await aToken(db, user.id);
    assert.equal(await updateTokenAbilities(db, other.id, token.id, '["posts:read"]', 5), false);
    assert.equal(await updateTokenAbilities(db, user.id, token.id, '["posts:read"]', 5), true);
    const row = await findTokenById(db, token.id);
    assert.deepEqual([row?.abilities, row?.updated_at], ['["posts:read"]', 5]);
  });

  covers([listPostsOfUser], "a user's posts, newest first, all or the first few", async () => {
    const { db } = ctx();
    const user = await aUser(db);
    const now = Date.now();
    const ids: number[] = [];
    for (const title of ['a', 'b', 'c'])
      ids.push(
        (await insertPost(db, { user_id: user.id, title, body: title, created_at: now, updated_at: now })).id,
      );
    assert.deepEqual(
      (await listPostsOfUser(db, user.id)).map((p) => p.title),
      ['c', 'b', 'a'],
    );
    assert.deepEqual(
      (await listPostsOfUser(db, user.id, 2)).map((p) => p.id),
      [ids[2], ids[1]],
    );
  });
};
