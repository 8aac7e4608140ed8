import assert from 'node:assert/strict';
import { setUserFlag } from '../../../src/admin/panel.repository.ts';
import {
  countLiveSessions,
  deleteDeadSessions,
  deleteOtherSessionsOfUser,
  deleteSessionOfUser,
  deleteSessionRow,
  deleteSessionsOfUser,
  findSessionRow,
  findSessionWithUserRow,
  insertSessionRow,
  listSessionsOfUser,
  touchSessionRow,
  updateSessionRow,
} from '../../../src/auth/sessions/sessions.repository.ts';
import type { NewSessionRow } from '../../../src/auth/sessions/sessions.table.ts';
import type { Db } from '../../../src/db/schema.ts';
import { toUser } from '../../../src/users/user.ts';
import { joinedUser } from '../../../src/users/users.repository.ts';
import { aUser, type ContractSuite, covers, hash64 } from './contract.ts';

async function aSession(
  db: Db,
  userId: number | null,
  fields: Partial<NewSessionRow> = {},
): Promise<NewSessionRow & { id: string }> {
  const now = Date.now();
  const row = {
    id: hash64('session'),
    guard: 'web',
    user_id: userId,
    data: '{}',
    ip_address: '192.0.2.1',
    user_agent: 'Storage/1.0',
    created_at: now,
    last_activity: now,
    ...fields,
  };
  await insertSessionRow(db, row);
  return row;
}

/** sessions.repository.ts (insertSessionRowIfAbsent: storage.test.ts). */
export const sessionsContract: ContractSuite = (ctx) => {
  covers(
    [insertSessionRow, findSessionRow, findSessionWithUserRow],
    'a session is found by its exact key, and with its user (none for a guest) in one read',
    async () => {
      const { db } = ctx();
      const user = await aUser(db);
      const signedIn = await aSession(db, user.id, { data: '{"ünïcode":"🦄"}' });
      const guest = await aSession(db, null);
      assert.deepEqual(await findSessionRow(db, signedIn.id), signedIn);
      assert.equal(await findSessionRow(db, signedIn.id.toUpperCase()), undefined, 'no case folding');
      const sessionOf = (row: object) =>
        Object.fromEntries(Object.keys(signedIn).map((key) => [key, row[key as keyof typeof row]]));
      const joined = (await findSessionWithUserRow(db, signedIn.id))!;
      assert.deepEqual(sessionOf(joined), signedIn);
      assert.deepEqual(joinedUser(joined), toUser(user));
      const alone = (await findSessionWithUserRow(db, guest.id))!;
      assert.deepEqual(sessionOf(alone), guest);
      assert.equal(joinedUser(alone), null, 'a guest has no user');
      assert.equal(await findSessionWithUserRow(db, hash64('none')), undefined);
      await assert.rejects(insertSessionRow(db, { ...guest }), 'the key is unique');
    },
  );

  covers(
    [updateSessionRow, touchSessionRow],
    'data is replaced; activity is written at most once a minute',
    async () => {
      const { db } = ctx();
      const session = await aSession(db, null, { last_activity: 1_000_000 });
      await updateSessionRow(db, session.id, { data: '{"a":1}' });
      assert.equal((await findSessionRow(db, session.id))?.data, '{"a":1}');
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => touchSessionRow(db, session.id, 1_100_000 + i, 1_040_000)),
      );
      const touched = (await findSessionRow(db, session.id))!.last_activity;
      assert.ok(touched >= 1_100_000 && touched < 1_100_010, String(touched));
      await touchSessionRow(db, session.id, 1_120_000, 1_060_000);
      assert.equal(
        (await findSessionRow(db, session.id))!.last_activity,
        touched,
        'within the minute: unchanged',
      );
      await updateSessionRow(db, session.id, { last_activity: 5 });
      assert.equal((await findSessionRow(db, session.id))!.last_activity, 5);
    },
  );

  covers(
    [listSessionsOfUser, deleteSessionOfUser, deleteSessionRow],
    "a user's sessions, most recently active first; one is deleted only by its owner and guard",
    async () => {
      const { db } = ctx();
      const [user, other] = [await aUser(db), await aUser(db)];
      const older = await aSession(db, user.id, { last_activity: 100 });
      const newer = await aSession(db, user.id, { last_activity: 200 });
      const admin = await aSession(db, user.id, { guard: 'admin', last_activity: 150 });
      await aSession(db, other.id);
      assert.deepEqual(
        (await listSessionsOfUser(db, user.id)).map((s) => s.id),
        [newer.id, admin.id, older.id],
      );
      assert.equal(await deleteSessionOfUser(db, other.id, 'web', older.id), false, 'not theirs');
      assert.equal(await deleteSessionOfUser(db, user.id, 'web', admin.id), false, 'another guard');
      assert.equal(await deleteSessionOfUser(db, user.id, 'web', older.id), true);
      await deleteSessionRow(db, admin.id);
      assert.deepEqual(
        (await listSessionsOfUser(db, user.id)).map((s) => s.id),
        [newer.id],
      );
    },
  );

  covers(
    [deleteSessionsOfUser, deleteOtherSessionsOfUser],
    "a user's sessions are deleted all, per guard, or all but this browser's",
    async () => {
      const { db } = ctx();
      const [user, other] = [await aUser(db), await aUser(db)];
      const keep = await aSession(db, user.id);
      await aSession(db, user.id);
      await aSession(db, user.id, { guard: 'admin' });
      const theirs = await aSession(db, other.id);
      assert.equal(await deleteOtherSessionsOfUser(db, user.id, keep.id), 2);
      assert.deepEqual(
        (await listSessionsOfUser(db, user.id)).map((s) => s.id),
        [keep.id],
      );
      await aSession(db, user.id, { guard: 'admin' });
      assert.equal(await deleteSessionsOfUser(db, user.id, 'admin'), 1);
      assert.equal(await deleteSessionsOfUser(db, user.id), 1);
      assert.ok(await findSessionRow(db, theirs.id), "another user's session stays");
    },
  );

  covers(
    [deleteDeadSessions, countLiveSessions],
    'idle and absolute lifetimes per guard; live sessions of disabled users and guests are not counted',
    async () => {
      const { db } = ctx();
      const [user, disabled] = [await aUser(db), await aUser(db)];
      const web = { activeAfter: 900_000, createdAfter: 500_000 };
      const admin = { activeAfter: 950_000, createdAfter: 500_000 };
      const cutoffs = new Map([
        ['web', web],
        ['admin', admin],
      ]);
      assert.equal(await countLiveSessions(db, new Map()), 0);
      const before = await countLiveSessions(db, cutoffs);
      const live = await aSession(db, user.id, { created_at: 600_000, last_activity: 960_000 });
      await aSession(db, null, { created_at: 600_000, last_activity: 960_000 });
      const liveAdmin = await aSession(db, user.id, {
        guard: 'admin',
        created_at: 600_000,
        last_activity: 960_000,
      });
      const idleAdmin = await aSession(db, user.id, {
        guard: 'admin',
        created_at: 600_000,
        last_activity: 920_000,
      });
      const idle = await aSession(db, user.id, { created_at: 600_000, last_activity: 900_000 });
      const tooOld = await aSession(db, user.id, { created_at: 500_000, last_activity: 960_000 });
      await aSession(db, disabled.id, { created_at: 600_000, last_activity: 960_000 });
      await setUserFlag(db, disabled.id, { disabled: true }, 1);
      assert.equal(await countLiveSessions(db, cutoffs), before + 2);
      assert.ok((await deleteDeadSessions(db, 'admin', admin)) >= 1);
      assert.ok((await deleteDeadSessions(db, 'web', web)) >= 2);
      const left = (await listSessionsOfUser(db, user.id)).map((s) => s.id);
      assert.deepEqual(left.sort(), [live.id, liveAdmin.id].sort());
      for (const gone of [idleAdmin, idle, tooOld])
        assert.equal(await findSessionRow(db, gone.id), undefined);
    },
  );
};
