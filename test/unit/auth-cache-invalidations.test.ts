import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { switchToPendingEmail } from '../../src/account/pending-email.repository.ts';
import { setUserFlag } from '../../src/admin/panel.repository.ts';
import {
  deleteDeadSessions,
  deleteOtherSessionsOfUser,
  deleteSessionOfUser,
  deleteSessionRow,
  deleteSessionsOfUser,
  insertSessionRowIfAbsent,
  touchSessionRow,
  updateSessionRow,
} from '../../src/auth/sessions/sessions.repository.ts';
import {
  deleteExpiredTokens,
  deleteTokens,
  touchToken,
  updateTokenAbilities,
} from '../../src/auth/tokens/access-tokens.repository.ts';
import type { Invalidation } from '../../src/db/auth-cache/invalidations.ts';
import { AuthCacheStore } from '../../src/db/auth-cache/store.ts';
import { watchedDialect } from '../../src/db/auth-cache/watched-dialect.ts';
import type { Database } from '../../src/db/schema.ts';
import { deleteUserRow, updateUser } from '../../src/users/users.repository.ts';

/**
 * AUTH_CACHE=notify: every write that can change a cached token, session or user announces exactly
 * which (invalidations.ts), through the driver (watched-dialect.ts) and only once it has committed.
 * The repositories' own write functions are run against a driver that answers nothing, so what is
 * checked is what the real use cases send.
 */
/** `affected`: what the driver reports for every statement (undefined: it does not say, like DummyDriver). */
function watched(affected?: bigint) {
  const committed: Invalidation[][] = [];
  class Driver extends DummyDriver {
    override async acquireConnection() {
      return {
        executeQuery: async () => ({ rows: [], numAffectedRows: affected }),
        streamQuery: async function* () {},
      };
    }
  }
  const db = new Kysely<Database>({
    dialect: watchedDialect(
      {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new Driver(),
        createIntrospector: (kysely) => new PostgresIntrospector(kysely),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
      { committed: (keys) => committed.push([...keys]) },
    ),
  });
  return { db, committed };
}

describe('auth cache invalidations: which writes announce which rows', () => {
  const cases: [string, (db: Kysely<Database>) => Promise<unknown>, Invalidation[]][] = [
    ['user update (password, e-mail, name…)', (db) => updateUser(db, 7, { name: 'x' }), ['u:7']],
    ['user disable', (db) => setUserFlag(db, 7, { disabled: true }, 1), ['u:7']],
    ['panel access change', (db) => setUserFlag(db, 7, { panelAccess: false }, 1), ['u:7']],
    ['e-mail change confirmed', (db) => switchToPendingEmail(db, 7, 'new@example.com', 1), ['u:7']],
    ['user delete', (db) => deleteUserRow(db, 7), ['u:7']],
    ['one token revoked', (db) => deleteTokens(db, 7, { id: 12 }), ['t:12']],
    ['tokens revoked by name', (db) => deleteTokens(db, 7, { name: 'ci' }), ['tu:7']],
    ['every token of a user revoked', (db) => deleteTokens(db, 7), ['tu:7']],
    ['token abilities changed', (db) => updateTokenAbilities(db, 7, 12, '["*"]', 1), ['t:12']],
    ['token last-used stamp', (db) => touchToken(db, 12, 2, 1), ['t:12']],
    ['expired tokens swept', (db) => deleteExpiredTokens(db, { now: 1, createdAfter: null }), ['t*']],
    ['session logout', (db) => deleteSessionRow(db, 'abc'), ['s:abc']],
    ['session data written', (db) => updateSessionRow(db, 'abc', { data: '{}' }), ['s:abc']],
    ['session touched', (db) => touchSessionRow(db, 'abc', 2, 1), ['s:abc']],
    ['one session of a user ended', (db) => deleteSessionOfUser(db, 7, 'web', 'abc'), ['s:abc']],
    ['every session of a user ended', (db) => deleteSessionsOfUser(db, 7), ['su:7']],
    ['other sessions of a user ended', (db) => deleteOtherSessionsOfUser(db, 7, 'abc'), ['su:7']],
    [
      'dead sessions swept',
      (db) => deleteDeadSessions(db, 'web', { activeAfter: 1, createdAfter: 1 }),
      ['s*'],
    ],
    ['a raw statement writing a cached table', (db) => sql`update users set name = 'x'`.execute(db), ['u*']],
  ];
  for (const [name, write, expected] of cases) {
    test(name, async () => {
      const { db, committed } = watched();
      await write(db);
      assert.deepEqual(committed, [expected]);
    });
  }

  test('an insert (a new session) announces nothing: absent answers are never kept', async () => {
    const { db, committed } = watched();
    await insertSessionRowIfAbsent(db, {
      id: 'abc',
      guard: 'web',
      user_id: null,
      data: '{}',
      created_at: 1,
      last_activity: 1,
      ip_address: null,
      user_agent: null,
    });
    assert.deepEqual(committed, []);
  });

  test('a write that matched no row still announces (a touch that found the row already touched means our copy is old)', async () => {
    const { db, committed } = watched(0n);
    await touchToken(db, 12, 2, 1);
    assert.deepEqual(committed, [['t:12']]);
  });

  test('in a transaction: announced once, after the commit, never after a rollback', async () => {
    const { db, committed } = watched();
    await db.transaction().execute(async (trx) => {
      await updateUser(trx, 7, { name: 'x' });
      await deleteSessionsOfUser(trx, 7);
      assert.deepEqual(committed, [], 'announced before the commit');
    });
    assert.deepEqual(committed, [['u:7', 'su:7']]);
    await db
      .transaction()
      .execute(async (trx) => {
        await updateUser(trx, 8, { name: 'y' });
        throw new Error('rolled back');
      })
      .catch(() => {});
    assert.deepEqual(committed, [['u:7', 'su:7']]);
  });
});

describe('auth cache store: what an invalidation drops', () => {
  const token = (id: number, userId: number) => ({ token: { id, userId } });

  async function filled() {
    const store = new AuthCacheStore();
    store.subscribed();
    let loads = 0;
    const counting =
      <K, V>(answer: (key: K) => V) =>
      (key: K) => {
        loads++;
        return answer(key);
      };
    const tokens = store.lookup(
      't',
      counting((id: number) => token(id, id * 10)),
      {
        owner: (found) => found.token.userId,
      },
    );
    const sessions = store.lookup(
      's',
      counting((key: string) => ({ key, userId: 10 })),
      {
        owner: (session) => session.userId,
      },
    );
    const users = store.lookup(
      'u',
      counting((id: number) => ({ id })),
      { owner: (user) => user.id },
    );
    await tokens(1);
    await sessions('abc');
    await users(10);
    const loaded = () => loads;
    return { store, tokens, sessions, users, loaded };
  }

  test('kept entries answer without loading', async () => {
    const { tokens, sessions, users, loaded } = await filled();
    const before = loaded();
    tokens(1);
    sessions('abc');
    users(10);
    assert.equal(loaded(), before);
  });

  test('u:<id> drops the user and everything it owns (a deleted user cascades)', async () => {
    const { store, tokens, sessions, users, loaded } = await filled();
    const before = loaded();
    store.invalidate(['u:10']);
    await tokens(1);
    await sessions('abc');
    await users(10);
    assert.equal(loaded(), before + 3);
  });

  test('a load that an invalidation overtook is not kept', async () => {
    const store = new AuthCacheStore();
    store.subscribed();
    let release: (value: { id: number }) => void = () => {};
    let loads = 0;
    const users = store.lookup(
      'u',
      () => {
        loads++;
        return new Promise<{ id: number }>((resolve) => {
          release = resolve;
        });
      },
      { owner: (user) => user.id },
    );
    const pending = users(5);
    store.invalidate(['u:5']);
    release({ id: 5 });
    await pending;
    void users(5);
    assert.equal(loads, 2, 'an answer read before the change was kept');
  });

  test('a lost channel empties the store and nothing is served or kept until it is back', async () => {
    const { store, tokens, loaded } = await filled();
    store.lost();
    const before = loaded();
    await tokens(1);
    await tokens(1);
    assert.equal(loaded(), before + 2);
    store.subscribed();
    await tokens(1);
    await tokens(1);
    assert.equal(loaded(), before + 3);
  });
});
