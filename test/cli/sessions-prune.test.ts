import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/connection.ts';
import type { Db } from '../../src/db/schema.ts';
import { TEST_APP_KEY } from '../helpers/app.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import {
  availableDialects,
  createTestDatabase,
  databaseConfig,
  type TestDatabase,
} from '../helpers/databases.ts';
import { insertUserRow } from '../helpers/users.ts';

const MINUTE = 60_000;

const cli = (args: string[], env: Record<string, string>) => runCliInProcess(args, env);

async function seed(db: Db) {
  const now = Date.now();
  const user = {
    id: await insertUserRow(db, {
      name: 'Prune',
      email: 'prune@example.com',
      passwordHash: 'x',
      verified: false,
      panelAccess: true,
      now,
    }),
  };
  const session = (id: string, guard: string, createdAgo: number, idleAgo: number) => ({
    id,
    guard,
    user_id: user.id,
    data: '{}',
    ip_address: null,
    user_agent: null,
    created_at: now - createdAgo * MINUTE,
    last_activity: now - idleAgo * MINUTE,
  });
  await db
    .insertInto('sessions')
    .values([
      session('web-live', 'web', 60, 1),
      session('web-idle', 'web', 200, 121), // SESSION_LIFETIME 120
      session('web-too-old', 'web', 1441, 1), // absolute lifetime 1440
      session('admin-live', 'admin', 20, 20), // ADMIN_SESSION_LIFETIME 30
      session('admin-idle', 'admin', 40, 31),
    ])
    .execute();
  const remember = (selector: string, expiresIn: number) => ({
    selector,
    validator_hash: 'h'.repeat(64),
    user_id: user.id,
    guard: 'web',
    expires_at: now + expiresIn * MINUTE,
    created_at: now,
    last_used_at: null,
  });
  await db
    .insertInto('remember_tokens')
    .values([remember('live-selector-00', 10), remember('old-selector-000', -1)])
    .execute();
}

for (const { name, skip } of await availableDialects()) {
  describe(`sessions:prune on ${name}`, { skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(name);
    });
    after(async () => {
      await database?.drop();
    });

    test('deletes idle, too old and admin-idle sessions and expired remember tokens, nothing else', async () => {
      const env = { DATABASE_URL: database.url, APP_KEY: TEST_APP_KEY };
      assert.equal((await cli(['migrate'], env)).code, 0);
      const handle = openDatabase(databaseConfig(name, database.url));
      try {
        await seed(handle.db);
        const result = await cli(['sessions:prune'], env);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, 'Pruned 3 expired sessions and 1 expired remember-me token.\n');
        const sessions = await handle.db.selectFrom('sessions').select('id').orderBy('id').execute();
        assert.deepEqual(
          sessions.map((s) => s.id),
          ['admin-live', 'web-live'],
        );
        const tokens = await handle.db.selectFrom('remember_tokens').select('selector').execute();
        assert.deepEqual(
          tokens.map((t) => t.selector),
          ['live-selector-00'],
        );
        const again = await cli(['sessions:prune'], env);
        assert.equal(again.stdout, 'Pruned 0 expired sessions and 0 expired remember-me tokens.\n');
      } finally {
        await handle.close();
      }
    });
  });
}

test('sessions:prune --help and a bad configuration', async () => {
  const help = await cli(['sessions:prune', '--help'], {});
  assert.equal(help.code, 0);
  assert.match(
    help.stdout,
    /^Usage: gatehouse sessions:prune\n\nDelete expired browser sessions and remember-me tokens/,
  );
  const listed = await cli(['--help'], {});
  assert.match(listed.stdout, /sessions:prune\s+Delete expired browser sessions/);
  const bad = await cli(['sessions:prune'], { DATABASE_URL: 'mysql://nope', APP_KEY: TEST_APP_KEY });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^Invalid configuration: DATABASE_URL .*\n$/);
});
