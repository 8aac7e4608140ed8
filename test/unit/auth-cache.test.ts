import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type SqliteDatabase from 'better-sqlite3';
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
import type { Lookups } from '../../src/auth/auth.service.ts';
import { type AuthCache, createAuthCache } from '../../src/auth/cache/auth-cache.ts';
import { CacheStore } from '../../src/auth/cache/cache-store.ts';
import { watchedDialect } from '../../src/auth/cache/write-watcher.ts';
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
import { sessionWithUserFinder } from '../../src/auth/sessions/sessions.ts';
import {
  deleteExpiredTokens,
  deleteTokens,
  touchToken,
  updateTokenAbilities,
} from '../../src/auth/tokens/access-tokens.repository.ts';
import { loadConfig } from '../../src/config.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import type { Database } from '../../src/db/schema.ts';
import { openSqliteFile } from '../../src/db/sqlite-handles.ts';
import type { User } from '../../src/users/user.ts';
import { userFinder } from '../../src/users/user-provider.ts';
import { deleteUserRow, updateUser } from '../../src/users/users.repository.ts';
import { insertUserRow } from '../helpers/users.ts';

/**
 * The auth cache must answer exactly what the database would. On SQLite these tests change the data
 * behind a cached answer in every way the service meets (its own writes, another connection's commit
 * — the CLI or a second process) and check that the next lookup after the change loads again.
 */
describe('auth cache on SQLite (data_version)', () => {
  let folder: string;
  let handle: DatabaseHandle;
  let other: SqliteDatabase.Database;
  let cache: AuthCache;
  let lookups: Lookups;
  let loads = 0;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-cache-'));
    const filename = join(folder, 'db.sqlite');
    handle = openDatabase({ dialect: 'sqlite', filename });
    await migrateToLatest(handle.db);
    for (const id of [1, 2, 3]) {
      await insertUserRow(handle.db, { name: `user ${id}`, email: `u${id}@example.com`, passwordHash: 'x' });
    }
    // A second connection to the same file: what the CLI or another instance would be.
    other = openSqliteFile(filename);
    other.exec('pragma busy_timeout = 5000');
    const config = loadConfig({ DATABASE_URL: `sqlite:${filename}` }, { readDotEnv: false });
    cache = createAuthCache(config, null)!;
    const findUser = userFinder(handle.db);
    lookups = cache.wrap({
      findUser: (id) => {
        loads++;
        return findUser(id);
      },
      findTokenWithUser: async () => null,
      findSessionWithUser: sessionWithUserFinder(handle.db),
    });
  });
  after(async () => {
    other?.close();
    await cache?.close();
    await handle?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('an unchanged database answers from memory', async () => {
    await lookups.findUser(1);
    const before = loads;
    assert.equal((await lookups.findUser(1))?.name, 'user 1');
    assert.equal((await lookups.findUser(1))?.name, 'user 1');
    assert.equal(loads, before);
  });

  test("another connection's commit is seen by the very next lookup", async () => {
    await lookups.findUser(2);
    other.exec("update users set name = 'renamed by the CLI' where id = 2");
    assert.equal((await lookups.findUser(2))?.name, 'renamed by the CLI');
  });

  test('a write of this process (through Kysely) is seen at once', async () => {
    await lookups.findUser(3);
    await handle.db.updateTable('users').set({ name: 'renamed here' }).where('id', '=', 3).execute();
    assert.equal((await lookups.findUser(3))?.name, 'renamed here');
  });

  test('a commit while a load is in flight does not leave the older answer cached', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const loading = new Promise<void>((resolve) => {
      started = resolve;
    });
    let value = 'old';
    const slow = cache.wrap({
      findUser: async (id) => {
        const name = value;
        started();
        await gate;
        return { id, name } as User;
      },
      findTokenWithUser: async () => null,
      findSessionWithUser: async () => null,
    });
    const pending = slow.findUser(1);
    await loading;
    other.exec("update users set name = 'x' where id = 1");
    value = 'new';
    release();
    assert.equal((await pending)?.name, 'old');
    assert.equal((await slow.findUser(1))?.name, 'new', 'the answer read before the commit was served');
  });

  test('a cached session is one frozen object: no request can change what the next one reads', async () => {
    const now = Date.now();
    await handle.db
      .insertInto('sessions')
      .values({
        id: 'k'.repeat(64),
        guard: 'web',
        user_id: 1,
        data: JSON.stringify({ _flash: { status: 'Saved' }, list: [1] }),
        ip_address: null,
        user_agent: null,
        created_at: now,
        last_activity: now,
      })
      .execute();
    const first = await lookups.findSessionWithUser('k'.repeat(64));
    const second = await lookups.findSessionWithUser('k'.repeat(64));
    assert.ok(first);
    assert.equal(second, first, 'the same cached object');
    assert.equal(first.user?.id, 1, 'the user came with the session');
    assert.ok(Object.isFrozen(first.session.data) && Object.isFrozen(first.user));
    assert.throws(() => {
      (first.session.data['_flash'] as Record<string, unknown>)['status'] = 'changed';
    }, TypeError);
    assert.throws(() => (first.session.data['list'] as number[]).push(2), TypeError);
  });

  test('no cache for an in-memory database (nothing else could tell it of changes)', () => {
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:' }, { readDotEnv: false });
    assert.equal(createAuthCache(config, null), null);
  });
});

describe('cache store: what is kept, for how long, and what a change drops', () => {
  function counting<V>(answer: (key: number) => V | null) {
    const counter = { loads: 0 };
    const load = async (key: number) => {
      counter.loads++;
      return answer(key);
    };
    return { counter, load };
  }

  test('a change to a table drops the lookups that read it, and only those', async () => {
    const store = new CacheStore({ maxAgeMs: null, serving: true });
    const tokens = counting((id) => ({ id }));
    const users = counting((id) => ({ id }));
    const tokenLookup = store.lookup(tokens.load, { tables: ['personal_access_tokens', 'users'] });
    const userLookup = store.lookup(users.load, { tables: ['users'] });
    await tokenLookup.get(1);
    await userLookup.get(1);
    store.changed(['personal_access_tokens']);
    await tokenLookup.get(1);
    await userLookup.get(1);
    assert.deepEqual([tokens.counter.loads, users.counter.loads], [2, 1]);
    store.changed(['users']);
    await tokenLookup.get(1);
    await userLookup.get(1);
    assert.deepEqual([tokens.counter.loads, users.counter.loads], [3, 2]);
  });

  test('an insert drops only the lookups whose present answers it changes (a list of memberships)', async () => {
    const store = new CacheStore({ maxAgeMs: null, serving: true });
    const lists = counting((id) => [id]);
    const users = counting((id) => ({ id }));
    const listLookup = store.lookup(lists.load, {
      tables: ['organization_memberships'],
      insertsInto: ['organization_memberships'],
    });
    const userLookup = store.lookup(users.load, { tables: ['users', 'organization_memberships'] });
    await listLookup.get(1);
    await userLookup.get(1);
    store.changed(['organization_memberships:insert']);
    await listLookup.get(1);
    await userLookup.get(1);
    assert.deepEqual([lists.counter.loads, users.counter.loads], [2, 1]);
    assert.equal(store.insertsMatter('organization_memberships'), true);
    assert.equal(store.insertsMatter('sessions'), false);
  });

  test('absent answers are never kept (an INSERT needs to drop nothing)', async () => {
    const store = new CacheStore({ maxAgeMs: null, serving: true });
    const { counter, load } = counting(() => null);
    const lookup = store.lookup(load, { tables: ['users'] });
    await lookup.get(1);
    await lookup.get(1);
    assert.equal(counter.loads, 2);
  });

  test('maxAge: an entry older than the bound is loaded again, however quiet the source is', async () => {
    let now = 1000;
    const store = new CacheStore({ maxAgeMs: 40, serving: true, now: () => now });
    const { counter, load } = counting((id) => ({ id }));
    const lookup = store.lookup(load, { tables: ['users'] });
    await lookup.get(1);
    now += 39;
    await lookup.get(1);
    assert.equal(counter.loads, 1);
    now += 1;
    await lookup.get(1);
    assert.equal(counter.loads, 2);
  });

  test('not serving (a channel lost): every lookup loads and nothing is kept until it is back', async () => {
    const store = new CacheStore({ maxAgeMs: null, serving: true });
    const { counter, load } = counting((id) => ({ id }));
    const lookup = store.lookup(load, { tables: ['users'] });
    await lookup.get(1);
    store.setServing(false);
    await lookup.get(1);
    await lookup.get(1);
    assert.equal(counter.loads, 3);
    store.setServing(true);
    await lookup.get(1);
    await lookup.get(1);
    assert.equal(counter.loads, 4);
  });

  test('bounded: past the limit the oldest key is dropped; large answers are not kept', async () => {
    const store = new CacheStore({ maxAgeMs: null, serving: true });
    const { counter, load } = counting((size) => ({ data: 'x'.repeat(size) }));
    const lookup = store.lookup(load, { tables: ['sessions'], limit: 2, maxChars: 40 });
    await lookup.get(1);
    await lookup.get(2);
    await lookup.get(1);
    assert.equal(counter.loads, 2, 'both kept');
    await lookup.get(3);
    await lookup.get(1);
    assert.equal(counter.loads, 4, 'the oldest was evicted and loaded again');
    await lookup.get(50);
    await lookup.get(50);
    assert.equal(counter.loads, 6, 'a large answer is read each time');
  });
});

/**
 * AUTH_CACHE=notify on a server database: every write that can change a cached row is reported by its
 * table, through the driver, once it has committed. The repositories' own write functions run against
 * a driver that answers nothing, so what is checked is what the real use cases send.
 */
function watched() {
  const committed: string[][] = [];
  class Driver extends DummyDriver {
    override async acquireConnection() {
      return {
        executeQuery: async () => ({ rows: [] }),
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
      {
        committed: (tables) => {
          committed.push([...tables]);
        },
        insertsMatter: (table) => table === 'organization_memberships',
      },
    ),
  });
  return { db, committed };
}

describe('write watcher: which writes report which tables', () => {
  const cases: [string, (db: Kysely<Database>) => Promise<unknown>, string[]][] = [
    ['user update (password, e-mail, name…)', (db) => updateUser(db, 7, { name: 'x' }), ['users']],
    ['user disable', (db) => setUserFlag(db, 7, { disabled: true }, 1), ['users']],
    ['panel access change', (db) => setUserFlag(db, 7, { panelAccess: false }, 1), ['users']],
    ['e-mail change confirmed', (db) => switchToPendingEmail(db, 7, 'new@example.com', 1), ['users']],
    ['user delete', (db) => deleteUserRow(db, 7), ['users']],
    ['one token revoked', (db) => deleteTokens(db, 7, { id: 12 }), ['personal_access_tokens']],
    ['every token of a user revoked', (db) => deleteTokens(db, 7), ['personal_access_tokens']],
    [
      'token abilities changed',
      (db) => updateTokenAbilities(db, 7, 12, '["*"]', 1),
      ['personal_access_tokens'],
    ],
    ['token last-used stamp', (db) => touchToken(db, 12, 2, 1), ['personal_access_tokens']],
    [
      'expired tokens swept',
      (db) => deleteExpiredTokens(db, { now: 1, createdAfter: null }),
      ['personal_access_tokens'],
    ],
    ['session logout', (db) => deleteSessionRow(db, 'abc'), ['sessions']],
    ['session data written', (db) => updateSessionRow(db, 'abc', { data: '{}' }), ['sessions']],
    ['session touched', (db) => touchSessionRow(db, 'abc', 2, 1), ['sessions']],
    ['one session of a user ended', (db) => deleteSessionOfUser(db, 7, 'web', 'abc'), ['sessions']],
    ['every session of a user ended', (db) => deleteSessionsOfUser(db, 7), ['sessions']],
    ['other sessions of a user ended', (db) => deleteOtherSessionsOfUser(db, 7, 'abc'), ['sessions']],
    [
      'dead sessions swept',
      (db) => deleteDeadSessions(db, 'web', { activeAfter: 1, createdAfter: 1 }),
      ['sessions'],
    ],
    ['a raw statement writing a table', (db) => sql`update users set name = 'x'`.execute(db), ['users']],
  ];
  for (const [name, write, expected] of cases) {
    test(name, async () => {
      const { db, committed } = watched();
      await write(db);
      assert.deepEqual(committed, [expected]);
    });
  }

  test('an insert (a new session) reports nothing: absent answers are never kept', async () => {
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

  test('an insert into a table whose inserts matter (memberships) is reported as such', async () => {
    const { db, committed } = watched();
    await db
      .insertInto('organization_memberships')
      .values({ organization_id: 1, user_id: 7, role: 'member', created_at: 1, updated_at: 1 })
      .execute();
    assert.deepEqual(committed, [['organization_memberships:insert']]);
  });

  test('in a transaction: reported once, after the commit, never after a rollback', async () => {
    const { db, committed } = watched();
    await db.transaction().execute(async (trx) => {
      await updateUser(trx, 7, { name: 'x' });
      await deleteSessionsOfUser(trx, 7);
      assert.deepEqual(committed, [], 'reported before the commit');
    });
    assert.deepEqual(committed, [['users', 'sessions']]);
    await db
      .transaction()
      .execute(async (trx) => {
        await updateUser(trx, 8, { name: 'y' });
        throw new Error('rolled back');
      })
      .catch(() => {});
    assert.deepEqual(committed, [['users', 'sessions']]);
  });
});
