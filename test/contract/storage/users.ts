import assert from 'node:assert/strict';
import {
  clearPendingEmail,
  setPendingEmail,
  switchToPendingEmail,
} from '../../../src/account/pending-email.repository.ts';
import { countUsersByState, setUserFlag, userExists } from '../../../src/admin/panel.repository.ts';
import { insertToken, listTokensOfUser } from '../../../src/auth/tokens/access-tokens.repository.ts';
import { insertPost, listPostsOfUser } from '../../../src/posts/posts.repository.ts';
import {
  countUsers,
  deleteUserRow,
  findUserByEmail,
  findUserById,
  findUserRows,
  panelUserIds,
  setEmailVerified,
  updateUser,
} from '../../../src/users/users.repository.ts';
import { aUser, type ContractSuite, covers, hash64, uniqueEmail, winners } from './contract.ts';

/** users.repository.ts, the panel's flags and counts (admin/panel.repository.ts), pending addresses. */
export const usersContract: ContractSuite = (ctx) => {
  covers(
    [findUserById, findUserByEmail],
    'a user is found by id and by its exact stored address',
    async () => {
      const { db } = ctx();
      const user = await aUser(db, { name: 'Ada 🦄' });
      assert.deepEqual(await findUserById(db, user.id), user);
      assert.deepEqual(await findUserByEmail(db, user.email), user);
      assert.equal(await findUserByEmail(db, user.email.toUpperCase()), undefined, 'no case folding');
      assert.equal(await findUserByEmail(db, `${user.email} `), undefined, 'no trailing-space padding');
      assert.equal(await findUserById(db, user.id + 100_000), undefined);
    },
  );

  covers([countUsers], 'countUsers counts every row, as a number', async () => {
    const { db } = ctx();
    const before = await countUsers(db);
    assert.equal(typeof before, 'number');
    await aUser(db);
    await aUser(db);
    assert.equal(await countUsers(db), before + 2);
  });

  covers(
    [setEmailVerified],
    'of 10 concurrent verifications of one address, exactly one writes',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      assert.equal(await winners(10, (i) => setEmailVerified(db, user.id, 1000 + i)), 1);
      const row = await findUserById(db, user.id);
      assert.ok(row?.email_verified_at !== null && row!.email_verified_at >= 1000);
      assert.equal(await setEmailVerified(db, user.id, 5000), false, 'already verified');
    },
  );

  covers([deleteUserRow], 'deleting a user deletes its tokens and posts with it (cascade)', async () => {
    const { db } = ctx();
    const user = await aUser(db);
    const now = Date.now();
    await insertToken(db, {
      user_id: user.id,
      name: 'gone',
      token: hash64('cascade'),
      abilities: '["*"]',
      last_used_at: null,
      expires_at: null,
      created_at: now,
      updated_at: now,
    });
    await insertPost(db, { user_id: user.id, title: 't', body: 'b', created_at: now, updated_at: now });
    assert.equal(await deleteUserRow(db, user.id), true);
    assert.equal(await findUserById(db, user.id), undefined);
    assert.deepEqual(await listTokensOfUser(db, user.id), []);
    assert.deepEqual(await listPostsOfUser(db, user.id), []);
    assert.equal(await deleteUserRow(db, user.id), false, 'nothing left to delete');
  });

  covers([panelUserIds, setUserFlag], 'panel flags change only when they change something', async () => {
    const { db } = ctx();
    const user = await aUser(db);
    assert.ok(!(await panelUserIds(db)).includes(user.id));
    assert.equal(await winners(5, () => setUserFlag(db, user.id, { panelAccess: true }, 1)), 1);
    assert.ok((await panelUserIds(db)).includes(user.id));
    assert.equal(await winners(5, () => setUserFlag(db, user.id, { disabled: true }, 2)), 1);
    assert.ok(!(await panelUserIds(db)).includes(user.id), 'a disabled user is not a panel user');
    assert.equal(await setUserFlag(db, user.id, { disabled: false }, 3), true);
    assert.equal(await setUserFlag(db, user.id, { disabled: false }, 4), false);
    assert.equal(await winners(5, () => setUserFlag(db, user.id, { verify: true }, 5)), 1);
    assert.equal(await setUserFlag(db, user.id, { panelAccess: false }, 6), true);
    const row = await findUserById(db, user.id);
    assert.deepEqual([row?.can_access_panel, row?.disabled_at, row?.email_verified_at], [0, null, 5]);
  });

  covers([userExists, countUsersByState], 'userExists, and the overview counts by state', async () => {
    const { db } = ctx();
    const before = await countUsersByState(db);
    const user = await aUser(db, { email_verified_at: 1, can_access_panel: 1 });
    await aUser(db, { disabled_at: 2 });
    assert.equal(await userExists(db, user.id), true);
    assert.equal(await userExists(db, user.id + 100_000), false);
    const after = await countUsersByState(db);
    assert.deepEqual(after, {
      all: before.all + 2,
      verified: before.verified + 1,
      disabled: before.disabled + 1,
      panel: before.panel + 1,
    });
  });

  covers(
    [findUserRows],
    'rows read FOR UPDATE in a transaction: concurrent read-modify-writes never lose one',
    async () => {
      const { db } = ctx();
      const [a, b] = [await aUser(db, { name: '' }), await aUser(db, { name: '' })];
      assert.deepEqual(await findUserRows(db, [], { lock: true }), []);
      const unlocked = await findUserRows(db, [b.id, a.id, b.id + 100_000], { lock: false });
      assert.deepEqual(
        unlocked.map((row) => row.id),
        [a.id, b.id],
        'those that exist, in id order',
      );
      // Each transaction appends a letter to both names after reading them: without the lock two would
      // read the same names and one's write would be lost.
      await Promise.all(
        ['p', 'q', 'r', 's', 't'].map((letter) =>
          db.transaction().execute(async (trx) => {
            const rows = await findUserRows(trx, [b.id, a.id], { lock: true });
            for (const row of rows) await updateUser(trx, row.id, { name: row.name + letter });
          }),
        ),
      );
      for (const row of await findUserRows(db, [a.id, b.id], { lock: false }))
        assert.equal([...row.name].sort().join(''), 'pqrst', `user ${row.id}: ${row.name}`);
    },
  );

  covers(
    [setPendingEmail, clearPendingEmail, switchToPendingEmail],
    'a pending address: the last request wins, one of concurrent switches writes',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      const [first, second] = [uniqueEmail('pending'), uniqueEmail('pending')];
      await setPendingEmail(db, user.id, first, 10);
      await setPendingEmail(db, user.id, second, 11);
      assert.equal(await switchToPendingEmail(db, user.id, first, 12), false, 'no longer the pending one');
      assert.equal(await winners(10, () => switchToPendingEmail(db, user.id, second, 13)), 1);
      const row = await findUserById(db, user.id);
      assert.deepEqual(
        [row?.email, row?.email_verified_at, row?.pending_email, row?.pending_email_at],
        [second, 13, null, null],
      );
      assert.equal(await clearPendingEmail(db, user.id), false, 'nothing pending');
      await setPendingEmail(db, user.id, first, 14);
      assert.equal(await clearPendingEmail(db, user.id), true);
      assert.equal((await findUserById(db, user.id))?.pending_email, null);
    },
  );
};
