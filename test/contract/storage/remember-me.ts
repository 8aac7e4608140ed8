import assert from 'node:assert/strict';
import {
  consumeResetToken,
  deleteResetTokens,
  findResetToken,
  storeResetToken,
} from '../../../src/auth/password-reset/password-resets.repository.ts';
import {
  allRememberTokensOfUser,
  deleteExpiredRememberTokens,
  deleteOtherRememberTokens,
  deleteRememberToken,
  deleteRememberTokenBySelector,
  deleteRememberTokenOfUser,
  deleteRememberTokensOfUser,
  findRememberToken,
  insertRememberToken,
  listRememberTokensOfUser,
  rotateRememberToken,
} from '../../../src/auth/remember-me/remember-tokens.repository.ts';
import type { Db } from '../../../src/db/schema.ts';
import { aUser, type ContractSuite, covers, hash64, winners } from './contract.ts';

async function aRememberToken(db: Db, userId: number, fields: { guard?: string; expires?: number } = {}) {
  const selector = hash64('selector').slice(0, 24);
  await insertRememberToken(db, {
    selector,
    validator_hash: hash64('validator'),
    previous_validator_hash: null,
    rotated_at: null,
    user_id: userId,
    guard: fields.guard ?? 'web',
    expires_at: fields.expires ?? Date.now() + 3_600_000,
    created_at: Date.now(),
    last_used_at: null,
  });
  return (await findRememberToken(db, selector))!;
}

const selectors = (rows: { selector: string }[]) => rows.map((row) => row.selector);

/** remember-tokens.repository.ts and password-resets.repository.ts (storeResetToken: storage.test.ts). */
export const rememberMeContract: ContractSuite = (ctx) => {
  covers(
    [insertRememberToken, findRememberToken, rotateRememberToken],
    'of 10 concurrent rotations of one remember-me token exactly one wins; the old validator is kept as previous',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      const token = await aRememberToken(db, user.id);
      assert.equal(typeof token.id, 'number');
      assert.equal(await findRememberToken(db, token.selector.toUpperCase()), undefined, 'no case folding');
      const current = token.validator_hash;
      assert.equal(await winners(10, (i) => rotateRememberToken(db, token.id, current, `next-${i}`, 77)), 1);
      const rotated = (await findRememberToken(db, token.selector))!;
      assert.match(rotated.validator_hash, /^next-\d$/);
      assert.deepEqual(
        [rotated.previous_validator_hash, rotated.rotated_at, rotated.last_used_at],
        [current, 77, 77],
      );
    },
  );

  covers(
    [listRememberTokensOfUser, allRememberTokensOfUser, deleteExpiredRememberTokens],
    "a user's tokens: unexpired of one guard newest first, or every row; expired ones are pruned",
    async () => {
      const { db } = ctx();
      const now = Date.now();
      const user = await aUser(db);
      const older = await aRememberToken(db, user.id);
      const newer = await aRememberToken(db, user.id);
      const admin = await aRememberToken(db, user.id, { guard: 'admin' });
      const expired = await aRememberToken(db, user.id, { expires: now - 1 });
      assert.deepEqual(selectors(await listRememberTokensOfUser(db, user.id, 'web', now)), [
        newer.selector,
        older.selector,
      ]);
      assert.deepEqual(selectors(await allRememberTokensOfUser(db, user.id)), [
        expired.selector,
        admin.selector,
        newer.selector,
        older.selector,
      ]);
      assert.ok((await deleteExpiredRememberTokens(db, now)) >= 1);
      assert.equal(await findRememberToken(db, expired.selector), undefined);
      assert.equal((await allRememberTokensOfUser(db, user.id)).length, 3);
    },
  );

  covers(
    [
      deleteRememberToken,
      deleteRememberTokenBySelector,
      deleteRememberTokenOfUser,
      deleteRememberTokensOfUser,
      deleteOtherRememberTokens,
    ],
    'remember-me tokens are deleted by id, selector, owner, guard, or all but this browser’s',
    async () => {
      const { db } = ctx();
      const [user, other] = [await aUser(db), await aUser(db)];
      const [a, b, c] = [
        await aRememberToken(db, user.id),
        await aRememberToken(db, user.id),
        await aRememberToken(db, user.id),
      ];
      const theirs = await aRememberToken(db, other.id);
      await deleteRememberToken(db, a.id);
      await deleteRememberTokenBySelector(db, b.selector);
      assert.equal(await deleteRememberTokenOfUser(db, other.id, c.selector), 0, 'not theirs');
      assert.equal(await deleteRememberTokenOfUser(db, user.id, c.selector), 1);
      assert.deepEqual(await allRememberTokensOfUser(db, user.id), []);
      const keep = await aRememberToken(db, user.id);
      await aRememberToken(db, user.id);
      await aRememberToken(db, user.id, { guard: 'admin' });
      assert.equal(await deleteOtherRememberTokens(db, user.id, keep.selector), 2);
      assert.deepEqual(selectors(await allRememberTokensOfUser(db, user.id)), [keep.selector]);
      await aRememberToken(db, user.id, { guard: 'admin' });
      assert.equal(await deleteRememberTokensOfUser(db, user.id, 'admin'), 1);
      await aRememberToken(db, user.id);
      assert.equal(await deleteOtherRememberTokens(db, user.id, null), 2);
      await aRememberToken(db, user.id);
      assert.equal(await deleteRememberTokensOfUser(db, user.id), 1);
      assert.ok(await findRememberToken(db, theirs.selector), "another user's token stays");
    },
  );

  covers(
    [findResetToken, consumeResetToken, deleteResetTokens],
    'a reset token is spent once by 10 concurrent submits, never when too old or another',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      await db.transaction().execute((trx) => storeResetToken(trx, user.id, 'reset-hash', 5_000, 60_000));
      assert.deepEqual(await findResetToken(db, user.id), {
        user_id: user.id,
        token_hash: 'reset-hash',
        created_at: 5_000,
      });
      assert.equal(await consumeResetToken(db, user.id, 'RESET-HASH', 0), false, 'no case folding');
      assert.equal(await consumeResetToken(db, user.id, 'reset-hash', 5_000), false, 'too old');
      assert.equal(await winners(10, () => consumeResetToken(db, user.id, 'reset-hash', 4_999)), 1);
      assert.equal(await findResetToken(db, user.id), undefined);
      await db.transaction().execute((trx) => storeResetToken(trx, user.id, 'again', 9_000, 60_000));
      await deleteResetTokens(db, user.id);
      assert.equal(await findResetToken(db, user.id), undefined);
    },
  );
};
