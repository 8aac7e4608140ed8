import assert from 'node:assert/strict';
import { isUniqueViolation } from '../../../src/db/errors.ts';
import type { Db } from '../../../src/db/schema.ts';
import { deleteLiveChallenge, insertChallenge } from '../../../src/passkeys/challenges.repository.ts';
import {
  credentialsOf,
  deletePasskeyRow,
  findOwnPasskey,
  findPasskeyByCredential,
  insertPasskey,
  listPasskeys,
  recordPasskeyUse,
  renamePasskey,
} from '../../../src/passkeys/passkeys.repository.ts';
import {
  deleteTwoFactorRow,
  findTwoFactorRow,
  hasConfirmedTwoFactor,
  spendStep,
  storeEnrolment,
  swapRecoveryCodes,
} from '../../../src/two-factor/two-factor.repository.ts';
import { aUser, type ContractSuite, covers, hash64, winners } from './contract.ts';

function aPasskey(db: Db, userId: number, name = 'Phone', credentialHash = hash64('credential')) {
  return insertPasskey(db, {
    user_id: userId,
    credential_hash: credentialHash,
    credential_id: `cred-${credentialHash.slice(0, 16)}`,
    public_key: 'pQECAyYgASFYIA',
    counter: 0,
    transports: '["internal"]',
    user_handle: 'handle',
    name,
    created_at: 1_000,
    updated_at: 1_000,
    last_used_at: null,
  });
}

function anEnrolment(userId: number, secret: string, now: number) {
  return {
    user_id: userId,
    secret,
    recovery_codes: `codes-${secret}`,
    confirmed_at: null,
    last_used_step: null,
    created_at: now,
    updated_at: now,
  };
}

/** passkeys.repository.ts, challenges.repository.ts and two-factor.repository.ts. */
export const credentialsContract: ContractSuite = (ctx) => {
  covers(
    [insertPasskey, listPasskeys, credentialsOf, findPasskeyByCredential, findOwnPasskey],
    "passkeys: a credential is registered once (by anyone); a user's list in the order added",
    async () => {
      const { db } = ctx();
      const [user, other] = [await aUser(db), await aUser(db)];
      const first = await aPasskey(db, user.id, 'Phone 📱');
      const second = await aPasskey(db, user.id, 'Key');
      const row = (await findOwnPasskey(db, user.id, first))!;
      assert.equal(typeof first, 'number');
      assert.deepEqual(await findPasskeyByCredential(db, row.credential_hash), row);
      assert.equal(await findOwnPasskey(db, other.id, first), undefined, 'not theirs');
      const duplicate = await aPasskey(db, other.id, 'Copy', row.credential_hash).then(
        () => null,
        (error: unknown) => error,
      );
      assert.equal(isUniqueViolation(duplicate), true, String(duplicate));
      assert.deepEqual(await listPasskeys(db, user.id), [
        { id: first, name: 'Phone 📱', created_at: 1_000, last_used_at: null },
        { id: second, name: 'Key', created_at: 1_000, last_used_at: null },
      ]);
      assert.deepEqual(
        (await credentialsOf(db, user.id)).map((c) => c.transports),
        ['["internal"]', '["internal"]'],
      );
    },
  );

  covers(
    [renamePasskey, deletePasskeyRow, recordPasskeyUse],
    'passkeys: renamed and deleted by their owner only; of 10 concurrent sign-ins with one counter one records',
    async () => {
      const { db } = ctx();
      const [user, other] = [await aUser(db), await aUser(db)];
      const id = await aPasskey(db, user.id);
      assert.equal(await renamePasskey(db, other.id, id, 'Stolen', 2), false);
      assert.equal(await renamePasskey(db, user.id, id, 'Laptop', 2), true);
      assert.equal(await winners(10, (i) => recordPasskeyUse(db, id, 0, 5 + i, 3)), 1);
      const used = (await findOwnPasskey(db, user.id, id))!;
      assert.equal(used.name, 'Laptop');
      assert.ok(used.counter >= 5 && used.counter < 15);
      assert.equal(used.last_used_at, 3);
      assert.equal(await recordPasskeyUse(db, id, 0, 99, 4), false, 'the counter moved on');
      assert.equal(await deletePasskeyRow(db, other.id, id), false);
      assert.equal(await deletePasskeyRow(db, user.id, id), true);
      assert.deepEqual(await listPasskeys(db, user.id), []);
    },
  );

  covers(
    [insertChallenge, deleteLiveChallenge],
    'a challenge is spent once by 10 concurrent uses, only with its binding, purpose and user, only while live',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      const [challenge, binding] = [hash64('challenge'), hash64('binding')];
      const expired = hash64('expired');
      await insertChallenge(
        db,
        {
          challenge_hash: expired,
          session_binding: binding,
          purpose: 'login',
          user_id: null,
          expires_at: 100,
        },
        50,
      );
      await insertChallenge(
        db,
        {
          challenge_hash: challenge,
          session_binding: binding,
          purpose: 'register',
          user_id: user.id,
          expires_at: 1_000,
        },
        200,
      );
      const match = {
        challengeHash: challenge,
        sessionBinding: binding,
        purpose: 'register' as const,
        userId: user.id,
      };
      assert.equal(await deleteLiveChallenge(db, { ...match, purpose: 'login' }, 300), false);
      assert.equal(await deleteLiveChallenge(db, { ...match, userId: null }, 300), false);
      assert.equal(await deleteLiveChallenge(db, { ...match, sessionBinding: hash64('other') }, 300), false);
      assert.equal(await deleteLiveChallenge(db, match, 1_000), false, 'expired');
      assert.equal(await winners(10, () => deleteLiveChallenge(db, match, 300)), 1);
      const swept = await db
        .selectFrom('passkey_challenges')
        .select('challenge_hash')
        .where('challenge_hash', '=', expired)
        .execute();
      assert.deepEqual(swept, [], 'the insert swept the expired challenge');
    },
  );

  covers(
    [storeEnrolment, findTwoFactorRow, hasConfirmedTwoFactor, spendStep],
    'two-factor: an enrolment is replaced until confirmed; of 10 concurrent codes of one step one is spent',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      assert.equal(await storeEnrolment(db, anEnrolment(user.id, 'first', 1)), true);
      assert.equal(await winners(5, (i) => storeEnrolment(db, anEnrolment(user.id, `again${i}`, 2))), 5);
      assert.match((await findTwoFactorRow(db, user.id))!.secret, /^again\d$/);
      assert.equal(await hasConfirmedTwoFactor(db, user.id), false);
      assert.equal(await spendStep(db, user.id, 10, 3), false, 'a login step before confirmation');
      assert.equal(await winners(10, () => spendStep(db, user.id, 10, 3, { confirmedAt: 3 })), 1);
      assert.equal(await hasConfirmedTwoFactor(db, user.id), true);
      assert.equal(await storeEnrolment(db, anEnrolment(user.id, 'replace', 4)), false, 'confirmed: kept');
      assert.equal(await spendStep(db, user.id, 10, 5), false, 'the same step again');
      assert.equal(await spendStep(db, user.id, 9, 5), false, 'an earlier step');
      assert.equal(await winners(10, () => spendStep(db, user.id, 11, 6)), 1);
      const row = (await findTwoFactorRow(db, user.id))!;
      assert.deepEqual([row.last_used_step, row.confirmed_at, row.updated_at], [11, 3, 6]);
      assert.equal(await findTwoFactorRow(db, user.id + 100_000), undefined);
    },
  );

  covers(
    [swapRecoveryCodes, deleteTwoFactorRow],
    'two-factor: of 10 concurrent swaps of the same recovery codes one wins; the row is deleted once',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      await storeEnrolment(db, anEnrolment(user.id, 'codes', 1));
      assert.equal(
        await winners(10, (i) => swapRecoveryCodes(db, user.id, 'codes-codes', `next-${i}`, 2)),
        1,
      );
      assert.match((await findTwoFactorRow(db, user.id))!.recovery_codes, /^next-\d$/);
      assert.equal(await swapRecoveryCodes(db, user.id, 'CODES-CODES', 'x', 3), false);
      assert.equal(await deleteTwoFactorRow(db, user.id), true);
      assert.equal(await deleteTwoFactorRow(db, user.id), false);
    },
  );
};
