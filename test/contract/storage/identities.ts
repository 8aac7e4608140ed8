import assert from 'node:assert/strict';
import {
  findOwnIdentity,
  insertIdentity,
  listIdentityRows,
  recordIdentityUse,
  userHasPassword,
} from '../../../src/identities/identities.repository.ts';
import { NO_PASSWORD } from '../../../src/users/user.ts';
import { aUser, type ContractSuite, covers, hash64 } from './contract.ts';

/** identities.repository.ts, beside the identity tests of storage.test.ts. */
export const identitiesContract: ContractSuite = (ctx) => {
  covers(
    [listIdentityRows, findOwnIdentity, recordIdentityUse, userHasPassword],
    "a user's identity rows in the order linked; one is read and recorded only as its owner's",
    async () => {
      const { db } = ctx();
      const [user, other] = [await aUser(db, { password: NO_PASSWORD }), await aUser(db)];
      const link = (provider: string) =>
        insertIdentity(db, {
          user_id: user.id,
          provider,
          subject: hash64('subject'),
          email: 'ada@example.com',
          email_verified: 0,
          created_at: 1_000,
          updated_at: 1_000,
          last_used_at: null,
        });
      const [first, second] = [await link('acme'), await link('github')];
      assert.deepEqual(
        (await listIdentityRows(db, user.id)).map((row) => [row.id, row.provider]),
        [
          [first, 'acme'],
          [second, 'github'],
        ],
      );
      assert.equal(await findOwnIdentity(db, other.id, first), undefined, 'not theirs');
      await recordIdentityUse(db, first, { email: 'ada@new.example', emailVerified: true }, 2_000);
      const used = (await findOwnIdentity(db, user.id, first))!;
      assert.deepEqual(
        [used.email, used.email_verified, used.last_used_at, used.updated_at, used.created_at],
        ['ada@new.example', 1, 2_000, 2_000, 1_000],
      );
      assert.equal(await userHasPassword(db, user.id), false, 'made through a provider');
      assert.equal(await userHasPassword(db, other.id), true);
      assert.equal(await userHasPassword(db, other.id + 100_000), false, 'no such user');
    },
  );
};
