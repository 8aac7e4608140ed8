import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { hash } from '@node-rs/argon2';
import { createTestApp, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { availableDialects, type DialectName } from '../helpers/databases.ts';
import {
  createLaravelDatabase,
  type LaravelDatabase,
  type LaravelToken,
  laravelTime,
} from '../helpers/laravel.ts';

const USER_MODEL = 'App\\Models\\User';
const now = Date.now();
const PASSWORD = 'an-old-laravel-password';
// A PHC string with parameters nobody should have to wait for: 4 GiB of memory, 100 passes.
const HUGE_MEMORY = `$argon2id$v=19$m=4194304,t=100,p=1$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}`;
const MANY_PASSES = `$argon2id$v=19$m=65536,t=5000,p=1$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}`;
const MANY_LANES = `$argon2i$v=19$m=65536,t=4,p=255$c29tZXNhbHRzb21lc2FsdA$${'A'.repeat(43)}`;

/** Sanctum's stored hash of a secret (sha256 hex). */
const sha256 = (secret: string) => createHash('sha256').update(secret).digest('hex');

const token = (id: number, userId: number, secret: string): LaravelToken => ({
  id,
  tokenable_type: USER_MODEL,
  tokenable_id: userId,
  name: `device-${id}`,
  token: sha256(secret),
  abilities: '["*"]',
  last_used_at: null,
  expires_at: null,
  created_at: laravelTime(now),
  updated_at: laravelTime(now),
});

/** Drops Sanctum's unique index on the token hash (a database made by hand, or from an old dump). */
const DROP_UNIQUE: Record<DialectName, string> = {
  sqlite: 'drop index "personal_access_tokens_token_unique"',
  postgres: 'alter table "personal_access_tokens" drop constraint "personal_access_tokens_token_unique"',
  mysql: 'alter table `personal_access_tokens` drop index `personal_access_tokens_token_unique`',
};

/**
 * docs/guides/moving-from-laravel.md (issue 27, item 9): one bad row does not abort the import — a token
 * whose hash another token of the source already has is left out and reported, the rest is imported; and
 * an argon2 hash whose parameters would hold a hashing thread for seconds at every login (memory, passes or
 * lanes beyond the bounds the guide states) is not copied: its user is imported without a password (they
 * reset it), reported with the bounds.
 */
for (const { name: dialect, skip } of await availableDialects()) {
  describe(`import:laravel refuses what it cannot keep, and goes on [${dialect}]`, { skip }, () => {
    let source: LaravelDatabase;
    let gatehouse: TestApp;
    before(async () => {
      const reasonable = await hash(PASSWORD, {
        algorithm: 2,
        memoryCost: 65536,
        timeCost: 4,
        parallelism: 1,
      });
      const user = (id: number, password: string) => ({
        id,
        name: `User ${id}`,
        email: `user${id}@example.com`,
        password,
        email_verified_at: laravelTime(now),
        created_at: laravelTime(now),
        updated_at: laravelTime(now),
      });
      source = await createLaravelDatabase(dialect, {
        users: [user(1, reasonable), user(2, HUGE_MEMORY), user(3, MANY_PASSES), user(4, MANY_LANES)],
        tokens: [],
      });
      await source.exec(DROP_UNIQUE[dialect]);
      // MySQL reads a backslash in a string literal as an escape (App\\Models\\User).
      const literal = (text: string) =>
        (dialect === 'mysql' ? text.replace(/\\/g, '\\\\') : text).replace(/'/g, "''");
      const q = (name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
      for (const row of [
        token(1, 1, 'first-secret'),
        token(2, 1, 'first-secret'),
        token(3, 2, 'third-secret'),
      ]) {
        const values = Object.values(row).map((v) => (v === null ? 'null' : `'${literal(String(v))}'`));
        await source.exec(
          `insert into ${q('personal_access_tokens')} (${Object.keys(row).map(q).join(', ')}) values (${values.join(', ')})`,
        );
      }
      gatehouse = await createTestApp(dialect, { env: { TOKEN_EXPIRATION: '', API_RATE_LIMIT: '0' } });
    });
    after(async () => {
      await gatehouse?.close();
      await source?.drop();
    });

    test('a duplicate token hash is skipped and reported; unreasonable argon2 parameters are not copied', async () => {
      const config = gatehouse.config.database;
      const url = config.dialect === 'sqlite' ? `sqlite:${config.filename}` : config.url;
      const result = await runCliInProcess(['import:laravel', '--from', source.url], {
        DATABASE_URL: url,
        APP_KEY: TEST_APP_KEY,
        TOKEN_EXPIRATION: '',
      });
      assert.equal(result.code, 0, `${result.stderr}\n${result.stdout}`);
      assert.match(result.stdout, /^Users: 4 in the Laravel database; 4 imported/m);
      assert.match(
        result.stdout,
        /^Tokens of .*: 3 in the Laravel database; 2 imported, 0 imported before, 1 not imported\.$/m,
      );
      assert.match(
        result.stdout,
        /not imported: 1 because its hash is that of another token of the Laravel database \(ids 2\)/,
      );
      assert.match(
        result.stdout,
        /3 imported users have an argon2 hash with unreasonable parameters .*\(ids 2, 3, 4\)/,
      );
      assert.match(result.stdout, /memory ≤ 262144 KiB/);

      const users = await gatehouse.db.selectFrom('users').select(['id', 'password']).orderBy('id').execute();
      assert.deepEqual(
        users.map((u) => u.id),
        [1, 2, 3, 4],
      );
      for (const refused of users.slice(1))
        assert.ok(!refused.password.startsWith('$argon2'), `user ${refused.id}: the hash was not copied`);
      const tokens = await gatehouse.db
        .selectFrom('personal_access_tokens')
        .select('id')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        tokens.map((t) => t.id),
        [1, 3],
      );

      // The reasonable hash still signs its user in; a refused one is a wrong password, answered at once.
      const login = (email: string) =>
        gatehouse.app.inject({
          method: 'POST',
          url: '/api/tokens',
          payload: { email, password: PASSWORD, device_name: 'x' },
        });
      assert.equal((await login('user1@example.com')).statusCode, 200);
      assert.equal((await login('user2@example.com')).statusCode, 401);
    });

    test('a hash beyond the bounds that is already stored is never verified (no thread held for it)', async () => {
      await gatehouse.db.updateTable('users').set({ password: HUGE_MEMORY }).where('id', '=', 3).execute();
      const started = Date.now();
      assert.equal(await gatehouse.services.hasher.verify(HUGE_MEMORY, PASSWORD), false);
      assert.ok(Date.now() - started < 2000, 'refused without computing it');
    });
  });
}
