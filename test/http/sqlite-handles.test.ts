import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openSqliteFile } from '../../src/db/sqlite-handles.ts';
import { importLaravel } from '../../src/import/laravel/import.ts';
import { openLaravelSource } from '../../src/import/laravel/source.ts';
import { bearer } from '../helpers/api.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createLaravelDatabase, laravelTime } from '../helpers/laravel.ts';

/*
 * On Node 24 the process aborts when V8 reclaims a better-sqlite3 Statement or Database during an
 * ordinary garbage collection (db/sqlite-handles.ts). That abort depends on when a collection happens;
 * what causes it does not: an object of better-sqlite3 that becomes garbage. So this test watches every
 * statement the service prepares (all of them pass through the addon's native prepare: Kysely's, the
 * direct reads', the pragmas') and every database they belong to, runs the service, closes it, collects
 * garbage twice and asserts that none of them was reclaimed. It fails on every Node version when a
 * statement or database is left to the garbage collector; the collection it runs is one started from
 * JavaScript, which does not abort even on Node 24.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const require = createRequire(import.meta.url);
const { cppdb } = require('better-sqlite3/lib/util.js') as { cppdb: symbol };
type NativePrepare = (this: object, source: string, ...rest: unknown[]) => { database: object };

describe('better-sqlite3 objects are never left to the garbage collector (Node 24 aborts)', () => {
  const native = Object.getPrototypeOf(
    (openSqliteFile(':memory:') as unknown as Record<symbol, object>)[cppdb],
  ) as { prepare: NativePrepare };
  const originalPrepare = native.prepare;
  const prepared: string[] = [];
  /** The database each of `prepared` was prepared on. */
  const preparedOn: object[] = [];
  const reclaimed: string[] = [];
  const watched = new WeakSet<object>();
  const registry = new FinalizationRegistry<string>((what) => reclaimed.push(what));
  let t: TestApp | undefined;

  before(async () => {
    native.prepare = function (this: object, source: string, ...rest: unknown[]) {
      const statement = originalPrepare.call(this, source, ...rest);
      prepared.push(source);
      preparedOn.push(statement.database);
      registry.register(statement, `statement ${source.slice(0, 60)}`);
      if (!watched.has(statement.database)) {
        watched.add(statement.database);
        registry.register(statement.database, 'database');
      }
      return statement;
    };
    t = await createTestApp('sqlite');
  });
  after(async () => {
    native.prepare = originalPrepare;
    await t?.close();
  });

  const round = async (app: TestApp, token: string) => {
    for (let i = 0; i < 5; i++) {
      assert.equal((await app.app.inject({ url: '/ready' })).statusCode, 200);
      assert.equal((await app.app.inject({ url: '/login' })).statusCode, 200);
      assert.equal((await app.app.inject({ url: '/api/user', headers: bearer(token) })).statusCode, 200);
    }
  };

  test('serving requests prepares each statement once', async () => {
    const app = t!;
    const user = await app.createUser();
    const token = await app.issueToken(user.email, user.password);
    await round(app, token);
    const before = prepared.length;
    assert.ok(before > 0, 'the watch sees the service prepare');
    await round(app, token);
    assert.deepEqual(prepared.slice(before), [], 'a second round of the same requests prepares nothing');
  });

  test('reading a Laravel SQLite database (import:laravel) prepares each query shape once', async () => {
    const at = laravelTime(Date.now());
    const hash = '$2y$10$92IXUNpkjO0rOQ5byMi.Ye4oKoEa3Ro9llC/.og/at2.uheWG/igi';
    const users = [1, 2, 3, 4, 5].map((id) => ({
      id,
      name: `Laravel ${id}`,
      email: `laravel${id}@example.com`,
      password: hash,
      email_verified_at: at,
      created_at: at,
      updated_at: at,
    }));
    const tokens = [1, 2, 3].map((id) => ({
      id,
      tokenable_type: 'App\\Models\\User',
      tokenable_id: id,
      name: 'app',
      token: String(id).repeat(64),
      abilities: '["*"]',
      last_used_at: null,
      expires_at: null,
      created_at: at,
      updated_at: at,
    }));
    const laravel = await createLaravelDatabase('sqlite', { users, tokens });
    try {
      const before = prepared.length;
      const source = await openLaravelSource({
        dialect: 'sqlite',
        filename: laravel.url.slice('sqlite:'.length),
      });
      try {
        // One row per batch: every batch runs the same queries again.
        const summary = await importLaravel(
          source,
          t!.services.database,
          {
            dryRun: true,
            admins: [],
            tokenableType: 'App\\Models\\User',
            zone: 'UTC',
            locale: 'en',
            now: Date.now(),
            batchSize: 1,
          },
          () => {},
        );
        assert.equal(summary.users.found, 5);
        assert.equal(summary.tokens?.found, 3);
      } finally {
        await source.close();
      }
      // The dry run reads the target too (its own handle, its own statements): pairs, not texts.
      const databases = preparedOn.slice(before);
      const pairs = prepared.slice(before).map((text, i) => ({ text, on: databases[i] }));
      const twice = pairs.filter((p, i) => pairs.findIndex((q) => q.text === p.text && q.on === p.on) !== i);
      assert.deepEqual(twice, [], 'no query text prepared twice on one database');
    } finally {
      await laravel.drop();
    }
  });

  test('after the service and the source closed, a garbage collection reclaims none of their statements or databases', async () => {
    await t!.close();
    t = undefined;
    for (let i = 0; i < 2; i++) {
      gc();
      // Finalization callbacks run in a later task.
      await new Promise((resolve) => setTimeout(resolve, 10));
      await nextTurn();
    }
    assert.deepEqual(reclaimed, []);
  });
});
