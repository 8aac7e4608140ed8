import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../../src/db/connection.ts';
import { SqliteCheckpoints } from '../../src/db/sqlite-checkpoints.ts';
import { openSqliteFile } from '../../src/db/sqlite-handles.ts';

/*
 * db/sqlite-checkpoints.ts: a busy SQLite database copies its WAL back into the database file from a
 * thread of its own; a quiet one never starts that thread. Real files, real threads.
 */
const folder = mkdtempSync(join(tmpdir(), 'gatehouse-checkpoints-'));
after(() => rmSync(folder, { recursive: true, force: true }));

function openFile(name: string) {
  const filename = join(folder, name);
  const database = openSqliteFile(filename);
  database.exec('pragma journal_mode = WAL; pragma synchronous = NORMAL');
  database.exec('create table rows (id integer primary key, body text not null)');
  const insert = database.prepare('insert into rows (body) values (?)');
  /** Writes about `pages` pages of 4 KiB, one commit each. */
  const write = (pages: number) => {
    for (let i = 0; i < pages; i++) insert.run('x'.repeat(3000));
  };
  return { filename, database, write };
}

async function until(what: string, check: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`${what} did not happen within ${ms} ms`);
    await sleep(10);
  }
}

describe('SQLite checkpoints in a thread of their own', () => {
  test('a quiet database starts no thread and keeps SQLite’s automatic checkpoint', async () => {
    const { filename, database, write } = openFile('quiet.sqlite');
    const checkpoints = new SqliteCheckpoints(filename, database, { lookEveryMs: 5 });
    write(50);
    await sleep(100);
    assert.equal(checkpoints.threaded, false);
    assert.equal(database.pragma('wal_autocheckpoint', { simple: true }), 1000);
    await checkpoints.close();
    database.close();
  });

  test('a busy database gets the thread, which copies the WAL back while the connection only writes', async () => {
    const { filename, database, write } = openFile('busy.sqlite');
    const checkpoints = new SqliteCheckpoints(filename, database, { lookEveryMs: 5 });
    // Past 1,000 pages: the size at which SQLite checkpoints on its own.
    write(1100);
    await until('the thread starting', () => checkpoints.threaded);
    await until(
      'the backstop being raised',
      () => database.pragma('wal_autocheckpoint', { simple: true }) === 4000,
    );

    // 2,000 more pages stay under the connection's backstop of 4,000: only the thread can have copied
    // them into the database file.
    const before = statSync(filename).size;
    write(2000);
    await until(
      'the pages reaching the database file',
      () => statSync(filename).size >= before + 2000 * 3000,
    );
    assert.equal(database.prepare('select count(*) from rows').pluck().get(), 3100);

    await checkpoints.close();
    assert.equal(checkpoints.threaded, false);
    database.close();
    // The service's connection was the last one: SQLite folded the WAL back and removed it.
    assert.equal(existsSync(`${filename}-wal`), false);
  });

  test('a service database on disk closes cleanly and leaves no -wal file', async () => {
    const handle = openDatabase({ dialect: 'sqlite', filename: join(folder, 'service.sqlite') });
    await handle.ping();
    await handle.close();
    assert.equal(existsSync(join(folder, 'service.sqlite-wal')), false);
  });
});
