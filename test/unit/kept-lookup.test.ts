import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type SqliteDatabase from 'better-sqlite3';
import { sessionFinder } from '../../src/auth/sessions/sessions.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connection.ts';
import { untracked } from '../../src/db/fast-path/changes.ts';
import { KeptLookup, keptLookup } from '../../src/db/fast-path/kept-lookup.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { openSqliteFile } from '../../src/db/sqlite-handles.ts';
import { insertUserRow } from '../helpers/users.ts';

/**
 * Kept lookups must answer exactly what the database would: these tests change the data behind a
 * kept answer in every way the service meets (its own writes, another connection's commit — the
 * CLI or a second process) and check that the next lookup after the change loads again.
 */
describe('KeptLookup over SQLite change tracking', () => {
  let folder: string;
  let handle: DatabaseHandle;
  let other: SqliteDatabase.Database;
  let loads = 0;
  let names: KeptLookup<number, string | null>;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-kept-'));
    const filename = join(folder, 'db.sqlite');
    handle = openDatabase({ dialect: 'sqlite', filename });
    await migrateToLatest(handle.db);
    for (const id of [1, 2, 3]) {
      await insertUserRow(handle.db, { name: `user ${id}`, email: `u${id}@example.com`, passwordHash: 'x' });
    }
    // A second connection to the same file: what the CLI or another instance would be.
    other = openSqliteFile(filename);
    other.exec('pragma busy_timeout = 5000');
    names = new KeptLookup(handle.changes, async (id: number) => {
      loads++;
      const row = await handle.db.selectFrom('users').select('name').where('id', '=', id).executeTakeFirst();
      return row?.name ?? null;
    });
  });
  after(async () => {
    other?.close();
    await handle?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** A new request: the HTTP layer calls observe() first (app.ts); within the same event-loop turn. */
  async function asNewRequest<T>(run: () => T | Promise<T>): Promise<T> {
    handle.changes.observe();
    return run();
  }

  test('an unchanged database answers from memory, across requests', async () => {
    await asNewRequest(() => names.get(1));
    const before = loads;
    assert.equal(await asNewRequest(() => names.get(1)), 'user 1');
    assert.equal(await asNewRequest(() => names.get(1)), 'user 1');
    assert.equal(loads, before, 'no load while nothing changed');
  });

  test("another connection's commit is seen by the next request", async () => {
    assert.equal(await asNewRequest(() => names.get(2)), 'user 2');
    other.exec("update users set name = 'renamed elsewhere' where id = 2");
    assert.equal(await asNewRequest(() => names.get(2)), 'renamed elsewhere');
    other.exec('delete from users where id = 2');
    assert.equal(await asNewRequest(() => names.get(2)), null);
  });

  test('a write of this process (through Kysely) is seen at once, even within one turn', async () => {
    assert.equal(await asNewRequest(() => names.get(3)), 'user 3');
    await handle.db.updateTable('users').set({ name: 'renamed here' }).where('id', '=', 3).execute();
    assert.equal(await names.get(3), 'renamed here');
  });

  test('outside a request, a commit elsewhere is seen from the next event-loop turn', async () => {
    await asNewRequest(() => names.get(1));
    other.exec("update users set name = 'next turn' where id = 1");
    await nextTurn();
    await nextTurn();
    assert.equal(await names.get(1), 'next turn');
  });

  test('a write of ours landing while a load is in flight does not leave the older answer kept', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const loading = new Promise<void>((resolve) => {
      started = resolve;
    });
    let value = 'old';
    const slow = new KeptLookup(handle.changes, async (_key: number) => {
      const seen = value;
      started();
      await gate;
      return seen;
    });
    handle.changes.observe();
    const pending = slow.get(1);
    await loading;
    await handle.db.updateTable('users').set({ name: 'x' }).where('id', '=', 1).execute();
    value = 'new';
    release();
    assert.equal(await pending, 'old');
    assert.equal(await slow.get(1), 'new', 'the entry was stored under the version before the write');
  });

  test('a request during a transaction does not trust the transaction snapshot', async () => {
    assert.equal(await asNewRequest(() => names.get(1)), await names.get(1));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let opened!: () => void;
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const transaction = handle.db.transaction().execute(async (trx) => {
      await trx.selectFrom('users').select('id').execute();
      opened();
      await gate;
    });
    await open;
    other.exec("update users set name = 'during a transaction' where id = 1");
    const answer = asNewRequest(() => names.get(1));
    // The version is read in the next check phase, while the transaction still holds the connection.
    await nextTurn();
    release();
    await transaction;
    assert.equal(await answer, 'during a transaction');
  });

  test('answers that fail the keep test (large session rows) are read each time', async () => {
    let count = 0;
    // {"n":1,"data":"xxxxx"} is 22 characters, the 50-character one 67.
    const rows = new KeptLookup(
      handle.changes,
      async (size: number) => ({ n: ++count, data: 'x'.repeat(size) }),
      { maxChars: 40 },
    );
    handle.changes.observe();
    await rows.get(5);
    await rows.get(5);
    assert.equal(count, 1, 'small answer kept');
    await rows.get(50);
    await rows.get(50);
    assert.equal(count, 3, 'large answer read each time');
  });

  test('bounded: past the limit the oldest key is dropped and loaded again', async () => {
    let count = 0;
    const small = new KeptLookup(handle.changes, async (_key: number) => ++count, { limit: 2 });
    handle.changes.observe();
    const first = await small.get(1);
    await small.get(2);
    assert.equal(await small.get(1), first, 'still kept');
    await small.get(3);
    assert.notEqual(await small.get(1), first, 'evicted, loaded again');
  });

  test('a kept session is one frozen object: no request can change what the next one reads', async () => {
    const now = Date.now();
    await handle.db
      .insertInto('sessions')
      .values({
        id: 'k'.repeat(64),
        guard: 'web',
        user_id: null,
        data: JSON.stringify({ _flash: { status: 'Saved' }, list: [1] }),
        ip_address: null,
        user_agent: null,
        created_at: now,
        last_activity: now,
      })
      .execute();
    const read = keptLookup(handle.changes, sessionFinder(handle.db));
    handle.changes.observe();
    const first = await read('k'.repeat(64));
    handle.changes.observe();
    const second = await read('k'.repeat(64));
    assert.ok(first);
    assert.equal(second, first, 'the same kept object');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.data));
    assert.throws(() => {
      (first.data['_flash'] as Record<string, unknown>)['status'] = 'changed';
    }, TypeError);
    assert.throws(() => (first.data['list'] as number[]).push(2), TypeError);
  });

  test('PostgreSQL (untracked): every lookup loads', async () => {
    let count = 0;
    const lookup = new KeptLookup(untracked, async () => ++count);
    await lookup.get(1);
    await lookup.get(1);
    assert.equal(count, 2);
  });
});
