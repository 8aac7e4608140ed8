import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { findUserById } from '../../src/users/users.repository.ts';
import { insertUserRow } from '../helpers/users.ts';

// SQLite has one connection: the dialect must still give each transaction the connection to itself
// (no lost updates, no query of another request inside it) while handing turns over fairly.
const folder = mkdtempSync(join(tmpdir(), 'gatehouse-dialect-'));
const handle = openDatabase({ dialect: 'sqlite', filename: join(folder, 'db.sqlite') });
before(() => migrateToLatest(handle.db));
after(async () => {
  await handle.close();
  rmSync(folder, { recursive: true, force: true });
});

test('concurrent read-modify-write transactions and plain queries never interleave', async () => {
  const db = handle.db;
  await sql`create table counter (id integer primary key, value integer not null)`.execute(db);
  await sql`insert into counter (id, value) values (1, 0)`.execute(db);
  const seen: number[] = [];
  const increments = Array.from({ length: 25 }, () =>
    db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ value: number }>`select value from counter where id = 1`.execute(trx);
      await new Promise((resolve) => setTimeout(resolve, 1)); // yield while holding the connection
      await sql`update counter set value = ${rows[0]!.value + 1} where id = 1`.execute(trx);
    }),
  );
  const readers = Array.from({ length: 25 }, async () => {
    const { rows } = await sql<{ value: number }>`select value from counter where id = 1`.execute(db);
    seen.push(rows[0]!.value);
  });
  const failing = db
    .transaction()
    .execute(async (trx) => {
      await sql`update counter set value = -1000 where id = 1`.execute(trx);
      throw new Error('roll back');
    })
    .catch((error: Error) => error.message);
  await Promise.all([...increments, ...readers]);
  assert.equal(await failing, 'roll back');
  const { rows } = await sql<{ value: number }>`select value from counter where id = 1`.execute(db);
  assert.equal(rows[0]!.value, 25);
  // Readers only ever saw committed values, never the rolled-back -1000.
  assert.ok(
    seen.every((v) => v >= 0 && v <= 25),
    JSON.stringify(seen),
  );
});

test('a point lookup never sees a row of a transaction that is still open, nor one rolled back', async () => {
  const db = handle.db;
  const now = Date.now();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let inserted = 0;
  const transaction = db
    .transaction()
    .execute(async (trx) => {
      const id = await insertUserRow(trx, {
        name: 'Pending',
        email: 'pending@example.com',
        passwordHash: 'x',
        verified: false,
        now,
      });
      inserted = id;
      assert.equal((await findUserById(trx, id))?.name, 'Pending', 'the transaction sees its own row');
      await held;
      throw new Error('roll back');
    })
    .catch(() => 'rolled back');
  while (inserted === 0) await new Promise((resolve) => setImmediate(resolve));
  let answered = false;
  const lookup = findUserById(db, inserted).then((row) => {
    answered = true;
    return row;
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(answered, false, 'the lookup waits for the transaction to end');
  release();
  assert.equal(await transaction, 'rolled back');
  assert.equal(await lookup, undefined);
});
