import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openSqliteFile } from '../../src/db/sqlite-handles.ts';
import { bearer } from '../helpers/api.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

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
  const reclaimed: string[] = [];
  const watched = new WeakSet<object>();
  const registry = new FinalizationRegistry<string>((what) => reclaimed.push(what));
  let t: TestApp | undefined;

  before(async () => {
    native.prepare = function (this: object, source: string, ...rest: unknown[]) {
      const statement = originalPrepare.call(this, source, ...rest);
      prepared.push(source);
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

  test('after the service closed, a garbage collection reclaims none of its statements or its database', async () => {
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
