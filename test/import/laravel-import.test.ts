import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { openSqliteFile } from '../../src/db/sqlite-handles.ts';
import { createTestApp, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { runCliInProcess, runGatehouse } from '../helpers/cli.ts';
import { availableDialects, createTestDatabase, type DialectName } from '../helpers/databases.ts';
import {
  createLaravelDatabase,
  type LaravelDatabase,
  type LaravelToken,
  type LaravelUser,
  laravelTime,
} from '../helpers/laravel.ts';
import { laravelHashes, phpSkip, sanctumSecrets } from '../helpers/php.ts';

/**
 * docs/guides/moving-from-laravel.md: `gatehouse import:laravel` from Laravel databases on all three source dialects, each
 * into a Gatehouse database of the same dialect. Every password hash and token row is made by PHP
 * the way Laravel and Sanctum make them (test/helpers/php.ts); the users then log in through the API
 * with their old passwords, and their tokens authenticate.
 */
const USER_MODEL = 'App\\Models\\User';
const DAY = 86_400_000;
const now = Date.now();
const skipPhp = phpSkip();

interface Person {
  id: number;
  name: string;
  email: string;
  password: string;
  form: 'bcrypt' | 'argon2i' | 'argon2id';
  rounds?: number;
}
const PEOPLE: Person[] = [
  { id: 1, name: 'Ada Lovelace', email: 'ada@example.com', password: 'ada-old-password', form: 'bcrypt' },
  { id: 2, name: 'Bob', email: 'Bob.Builder@Example.COM', password: 'bob-old-password', form: 'argon2i' },
  { id: 3, name: 'Cy', email: 'cy@example.com', password: 'cy-old-password', form: 'argon2id' },
  {
    id: 5,
    name: 'Dee Admin',
    email: 'dee@example.com',
    password: 'dee-old-password',
    form: 'bcrypt',
    rounds: 12,
  },
  // Case collisions: Laravel's unique index on SQLite and PostgreSQL compares bytes, so both exist.
  { id: 7, name: 'Eve', email: 'Eve@example.com', password: 'eve-password-1', form: 'bcrypt' },
  { id: 8, name: 'eve', email: 'eve@EXAMPLE.com', password: 'eve-password-2', form: 'bcrypt' },
  { id: 9, name: 'No Address', email: 'not an address', password: 'x-password', form: 'bcrypt' },
];
const COLLIDED = new Set([7, 8]);

interface Fixture {
  users: LaravelUser[];
  tokens: LaravelToken[];
  /** The plaintext each client holds, "<id>|<secret>", by token id. */
  plain: Map<number, string>;
}

/** Made once by PHP, shared by the three source dialects. */
function buildFixture(): Fixture {
  const hashes = [
    ...laravelHashes(
      PEOPLE.filter((p) => p.rounds === undefined),
      10,
    ),
  ];
  const hashOf = new Map<number, string>();
  let i = 0;
  for (const p of PEOPLE.filter((p) => p.rounds === undefined)) hashOf.set(p.id, hashes[i++]!);
  for (const p of PEOPLE.filter((p) => p.rounds !== undefined))
    hashOf.set(p.id, laravelHashes([p], p.rounds)[0]!);
  const users: LaravelUser[] = PEOPLE.map((p) => ({
    id: p.id,
    name: p.name,
    email: p.email,
    password: hashOf.get(p.id)!,
    email_verified_at: p.id === 2 ? null : '2024-01-02 03:04:05',
    remember_token: 'rememberTokenThatIsNotImported',
    created_at: '2023-12-31 23:59:59',
    updated_at: '2024-02-03 04:05:06',
  }));
  const secrets = sanctumSecrets([
    { form: 'legacy' }, // 1: Sanctum < 3.3
    { form: 'checksum' }, // 2
    { form: 'checksum', prefix: 'laravel_' }, // 3: sanctum.token_prefix
    { form: 'checksum' }, // 4: expired
    { form: 'checksum' }, // 5: a collided user's
    { form: 'checksum' }, // 6: a Team's
    { form: 'checksum' }, // 7: a user that does not exist
    { form: 'checksum' }, // 8: abilities NULL
  ]);
  const token = (id: number, tokenableId: number, extra: Partial<LaravelToken> = {}): LaravelToken => ({
    id,
    tokenable_type: USER_MODEL,
    tokenable_id: tokenableId,
    name: `device-${id}`,
    token: secrets[id - 1]!.hash,
    abilities: '["*"]',
    last_used_at: null,
    expires_at: null,
    created_at: laravelTime(now - DAY),
    updated_at: laravelTime(now - DAY),
    ...extra,
  });
  const tokens = [
    token(1, 1, { last_used_at: laravelTime(now - 3_600_000) }),
    token(2, 1, { abilities: '["posts:read"]', expires_at: laravelTime(now + 30 * DAY) }),
    token(3, 2, { name: 'Bob’s phone 📱', abilities: '["posts:read","posts:write","check-status"]' }),
    token(4, 3, { expires_at: laravelTime(now - DAY) }),
    token(5, 7),
    token(6, 1, { tokenable_type: 'App\\Models\\Team' }),
    token(7, 99),
    token(8, 5, { abilities: null }),
  ];
  const plain = new Map(tokens.map((t) => [t.id, `${t.id}|${secrets[t.id - 1]!.secret}`]));
  return { users, tokens, plain };
}

const fixture = skipPhp ? null : buildFixture();

/**
 * Laravel's MySQL schema compares e-mails case-insensitively (utf8mb4_unicode_ci), so the colliding
 * pair cannot exist there (a test below shows the unique key refusing it); their token's user then
 * does not exist at all.
 */
const rowsFor = (dialect: DialectName) => ({
  users: fixture!.users.filter((u) => dialect !== 'mysql' || !COLLIDED.has(u.id)),
  tokens: fixture!.tokens,
  teams: [{ id: 1, name: 'Team One' }],
});

for (const { name: dialect, skip } of await availableDialects()) {
  describe(`import:laravel from a Laravel database [${dialect}]`, { skip: skip || skipPhp }, () => {
    let source: LaravelDatabase;
    let gatehouse: TestApp;
    const cli = (...args: string[]) =>
      runCliInProcess(['import:laravel', '--from', source.url, ...args], {
        DATABASE_URL: gatehouseUrl(),
        APP_KEY: TEST_APP_KEY,
        TOKEN_EXPIRATION: '',
      });
    const gatehouseUrl = () => {
      const config = gatehouse.config.database;
      return config.dialect === 'sqlite' ? `sqlite:${config.filename}` : config.url;
    };
    const count = async (table: 'users' | 'personal_access_tokens') =>
      Number(
        (
          await gatehouse.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    before(async () => {
      source = await createLaravelDatabase(dialect, rowsFor(dialect));
      // Laravel's Sanctum default is tokens that never expire (sanctum.expiration = null).
      // At the configured (OWASP) argon2id cost: the first logins rehash to it.
      gatehouse = await createTestApp(dialect, {
        env: { TOKEN_EXPIRATION: '', API_RATE_LIMIT: '0' },
        argon2: OWASP_ARGON2ID,
      });
    });
    after(async () => {
      await gatehouse?.close();
      await source?.drop();
    });

    test('--dry-run reports what would happen and writes nothing', async () => {
      const result = await cli('--dry-run', '--admins', 'DEE@example.com');
      assert.equal(result.code, 0, result.stderr);
      const users = dialect === 'mysql' ? 5 : 7;
      assert.match(
        result.stdout,
        new RegExp(
          `^Users: ${users} in the Laravel database; 4 would be imported, 0 imported before, ${users - 4} not imported\\.$`,
          'm',
        ),
      );
      assert.match(result.stdout, /^Panel access would be granted: dee@example\.com$/m);
      assert.match(result.stdout, /^Dry run: nothing was written\.$/m);
      assert.equal(await count('users'), 0);
      assert.equal(await count('personal_access_tokens'), 0);
    });

    test('imports users and App\\Models\\User tokens, reports every left-out row, in one run', async () => {
      const result = await cli('--admins', 'dee@example.com');
      assert.equal(result.code, 0, result.stderr);
      const out = result.stdout;
      if (dialect === 'mysql') {
        assert.match(
          out,
          /^Users: 5 in the Laravel database; 4 imported, 0 imported before, 1 not imported\.$/m,
        );
        assert.match(out, /not imported: 2 because its user does not exist \(ids 5, 7\)/);
      } else {
        assert.match(
          out,
          /^Users: 7 in the Laravel database; 4 imported, 0 imported before, 3 not imported\.$/m,
        );
        assert.match(
          out,
          /^ {2}not imported: 2 accounts differ only in letter case: eve@example\.com \(ids 7, 8\)$/m,
        );
        assert.match(out, /not imported: 1 because its user was not imported \(ids 5\)/);
        assert.match(out, /not imported: 1 because its user does not exist \(ids 7\)/);
      }
      assert.match(out, /^ {2}not imported: 1 because not a valid e-mail address \(ids 9\)$/m);
      assert.match(
        out,
        /^Tokens of App\\Models\\User: 7 in the Laravel database; 5 imported, 0 imported before, 2 not imported\.$/m,
      );
      assert.match(
        out,
        /^ {2}not imported: 1 token of App\\Models\\Team \(only App\\Models\\User tokens are\)$/m,
      );
      assert.match(out, /^Panel access granted: dee@example\.com$/m);
      assert.match(result.stderr, /^Users: (\d)\/\1$/m, 'a progress line');
      assert.match(result.stderr, /^Tokens: 7\/7$/m);

      const users = await gatehouse.db.selectFrom('users').selectAll().orderBy('id').execute();
      assert.deepEqual(
        users.map((u) => [u.id, u.name, u.email, u.can_access_panel]),
        [
          [1, 'Ada Lovelace', 'ada@example.com', 0],
          [2, 'Bob', 'bob.builder@example.com', 0],
          [3, 'Cy', 'cy@example.com', 0],
          [5, 'Dee Admin', 'dee@example.com', 1],
        ],
      );
      for (const user of users) {
        const laravel = fixture!.users.find((u) => u.id === user.id)!;
        assert.equal(user.password, laravel.password, 'the hash exactly as Laravel stored it');
        assert.equal(user.created_at, Date.UTC(2023, 11, 31, 23, 59, 59));
        // Dee's row changed once more: the panel grant.
        if (user.id === 5) assert.ok(user.updated_at >= now, 'updated by the grant');
        else assert.equal(user.updated_at, Date.UTC(2024, 1, 3, 4, 5, 6));
        assert.equal(user.email_verified_at, user.id === 2 ? null : Date.UTC(2024, 0, 2, 3, 4, 5));
        assert.equal(user.disabled_at, null);
      }

      const tokens = await gatehouse.db
        .selectFrom('personal_access_tokens')
        .selectAll()
        .orderBy('id')
        .execute();
      assert.deepEqual(
        tokens.map((t) => [t.id, t.user_id, t.name, t.abilities]),
        [
          [1, 1, 'device-1', '["*"]'],
          [2, 1, 'device-2', '["posts:read"]'],
          [3, 2, 'Bob’s phone 📱', '["posts:read","posts:write","check-status"]'],
          [4, 3, 'device-4', '["*"]'],
          [8, 5, 'device-8', '[]'],
        ],
      );
      for (const row of tokens) {
        const laravel = fixture!.tokens.find((t) => t.id === row.id)!;
        assert.equal(row.token, laravel.token, 'the SHA-256 exactly as Laravel stored it');
        const seconds = (text: string | null) =>
          text === null ? null : Date.parse(`${text.replace(' ', 'T')}Z`);
        assert.equal(row.last_used_at, seconds(laravel.last_used_at));
        assert.equal(row.expires_at, seconds(laravel.expires_at));
        assert.equal(row.created_at, seconds(laravel.created_at));
      }
      // The panel grant and the import itself are in the audit trail.
      const audit = await gatehouse.db.selectFrom('audit_log').select(['event', 'subject_id']).execute();
      assert.ok(audit.some((a) => a.event === 'admin.user.panel_granted' && a.subject_id === 5));
      assert.ok(audit.some((a) => a.event === 'admin.import.laravel'));
    });

    test('users log in with their old passwords; only hashes weaker than the configured argon2id are replaced', async () => {
      const stored = async (id: number) =>
        (
          await gatehouse.db
            .selectFrom('users')
            .select('password')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).password;
      const before = new Map<number, string>();
      for (const id of [1, 2, 3, 5]) before.set(id, await stored(id));
      for (const person of PEOPLE.filter((p) => [1, 2, 3, 5].includes(p.id))) {
        const wrong = await gatehouse.app.inject({
          method: 'POST',
          url: '/api/tokens',
          payload: { email: person.email, password: `${person.password}!`, device_name: 'import-test' },
        });
        assert.equal(wrong.statusCode, 401, person.email);
        const login = await gatehouse.app.inject({
          method: 'POST',
          url: '/api/tokens',
          // The address in any case: it was stored lower-cased.
          payload: {
            email: person.email.toUpperCase(),
            password: person.password,
            device_name: 'import-test',
          },
        });
        assert.equal(login.statusCode, 200, `${person.email}: ${login.body}`);
        assert.equal(login.json().user.id, person.id);
      }
      assert.match(
        await stored(1),
        /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/,
        'bcrypt $2y$ → configured argon2id',
      );
      assert.match(
        await stored(5),
        /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/,
        'bcrypt cost 12 → configured argon2id',
      );
      assert.match(
        await stored(2),
        /^\$argon2id\$v=19\$m=65536,t=4,p=1\$/,
        'argon2i → argon2id, memory and passes kept',
      );
      assert.equal(await stored(3), before.get(3), "Laravel's argon2id m=65536,t=4 is as strong: kept");
    });

    test('tokens a client holds keep working, with their abilities and expiry', async () => {
      const get = (url: string, token: string) =>
        gatehouse.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      const plain = fixture!.plain;
      const ada = await get('/api/user', plain.get(2)!);
      assert.equal(ada.statusCode, 200, ada.body);
      assert.equal(ada.json().email, 'ada@example.com');
      assert.equal((await get('/api/posts', plain.get(2)!)).statusCode, 200, 'posts:read');
      const write = await gatehouse.app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: { authorization: `Bearer ${plain.get(2)}` },
        payload: { title: 'x', body: 'y' },
      });
      assert.equal(write.statusCode, 403, 'posts:write was not granted');
      const bob = await get('/api/user', plain.get(3)!);
      assert.equal(bob.statusCode, 200, 'a token with sanctum.token_prefix');
      assert.equal(bob.json().id, 2);
      assert.equal(
        (await get('/api/user', plain.get(4)!)).statusCode,
        401,
        'expired in Laravel, expired here',
      );
      assert.equal((await get('/api/posts', plain.get(8)!)).statusCode, 403, 'NULL abilities grant nothing');
      // Sanctum's older forms (docs/guides/moving-from-laravel.md): before 3.3 the secret had no checksum, and a bare
      // secret without "<id>|" is found by its hash.
      const legacy = await get('/api/user', plain.get(1)!);
      assert.equal(legacy.statusCode, 200, `a token from before Sanctum 3.3: ${legacy.body}`);
      assert.equal(legacy.json().id, 1);
      const bare = (id: number) => plain.get(id)!.slice(plain.get(id)!.indexOf('|') + 1);
      for (const id of [1, 2, 3]) {
        const response = await get('/api/user', bare(id));
        assert.equal(response.statusCode, 200, `token ${id} without its id: ${response.body}`);
      }
      assert.equal((await get('/api/user', bare(4))).statusCode, 401, 'expired, in any form');
      assert.equal((await get('/api/user', `2|${bare(1)}`)).statusCode, 401, 'another token’s secret');
      assert.equal((await get('/api/user', `1|${bare(1).slice(0, -1)}x`)).statusCode, 401, 'wrong secret');
      const listing = await get('/api/tokens', plain.get(2)!);
      const names = (listing.json().data as { name: string; last_used_at: string | null }[]).map(
        (t) => t.name,
      );
      assert.deepEqual(names.sort(), ['device-1', 'device-2', 'import-test'].sort());
    });

    test('a second run imports nothing new', async () => {
      const users = await count('users');
      const tokens = await count('personal_access_tokens');
      const result = await cli('--admins', 'dee@example.com');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /; 0 imported, 4 imported before, \d not imported\.$/m);
      assert.match(
        result.stdout,
        /^Tokens of App\\Models\\User: 7 in the Laravel database; 0 imported, 5 imported before, 2 not imported\.$/m,
      );
      assert.match(result.stdout, /^Panel access already held: dee@example\.com$/m);
      assert.equal(await count('users'), users);
      assert.equal(await count('personal_access_tokens'), tokens);
    });

    if (dialect === 'mysql') {
      test("Laravel's MySQL schema cannot hold two addresses that differ only in case", async () => {
        await assert.rejects(
          source.exec(
            "insert into users (name, email, password) values ('Ada again', 'ADA@example.com', 'x')",
          ),
          /Duplicate entry/,
        );
      });
    }

    test('new registrations and tokens after the import get ids of their own', async () => {
      const user = await gatehouse.createUser();
      assert.ok(user.id > 5, `new user id ${user.id}`);
      const token = await gatehouse.issueToken(user.email, user.password);
      assert.ok(Number(token.split('|')[0]) > 8, token);
      // A token Gatehouse issued keeps the strict form: its bare secret is refused.
      const bearer = (value: string) =>
        gatehouse.app.inject({
          method: 'GET',
          url: '/api/user',
          headers: { authorization: `Bearer ${value}` },
        });
      assert.equal((await bearer(token)).statusCode, 200);
      assert.equal((await bearer(token.slice(token.indexOf('|') + 1))).statusCode, 401);
    });

    test('a source that fails half-way leaves Gatehouse exactly as it was', async () => {
      const broken = await createLaravelDatabase(dialect, rowsFor(dialect));
      const target = await createTestDatabase(dialect);
      try {
        // The tokens table becomes a view whose third row cannot be read: the users are read and
        // inserted first, then the read fails inside the one transaction.
        await breakTokens(dialect, broken);
        const result = await runCliInProcess(['import:laravel', '--from', broken.url], {
          DATABASE_URL: target.url,
          APP_KEY: TEST_APP_KEY,
        });
        assert.equal(result.code, 1);
        assert.equal(result.stdout, '');
        assert.match(result.stderr, /\nImport failed: .+\. Nothing was written\.\n$/);
        assert.match(result.stderr, /^Users: \d\/\d$/m, 'the users had been read');
        const check = await createTestApp(dialect, { databaseUrl: target.url });
        try {
          const rows = await check.db.selectFrom('users').select('id').execute();
          assert.deepEqual(rows, []);
          const audit = await check.db.selectFrom('audit_log').select('id').execute();
          assert.deepEqual(audit, []);
        } finally {
          await check.close();
        }
      } finally {
        await broken.drop();
        await target.drop();
      }
    });
  });
}

for (const { name: dialect, skip } of await availableDialects()) {
  describe(`import:laravel numbers what comes after past the source's highest ids [${dialect}]`, {
    skip: skip || skipPhp,
  }, () => {
    test('the highest user and token are skipped; new ones still get higher ids than any Laravel row', async () => {
      const [ada] = fixture!.users;
      const user = (id: number, email: string) => ({ ...ada!, id, email, name: `User ${id}` });
      // The highest user is not imported: one of two addresses that differ only in case (Laravel's
      // MySQL schema cannot hold those: there an address that is not one), and neither is its token.
      const skipped =
        dialect === 'mysql'
          ? [user(3, 'not an address')]
          : [user(2, 'Zed@example.com'), user(3, 'zed@EXAMPLE.com')];
      const tokens = [
        { ...fixture!.tokens[0]!, id: 1, tokenable_id: 1 },
        { ...fixture!.tokens[1]!, id: 2, tokenable_id: 3 },
      ];
      const source = await createLaravelDatabase(dialect, {
        users: [user(1, 'ada@example.com'), ...skipped],
        tokens,
        teams: [],
      });
      const gatehouse = await createTestApp(dialect, { env: { TOKEN_EXPIRATION: '' } });
      try {
        const url = gatehouse.config.database;
        const result = await runCliInProcess(['import:laravel', '--from', source.url], {
          DATABASE_URL: url.dialect === 'sqlite' ? `sqlite:${url.filename}` : url.url,
          APP_KEY: TEST_APP_KEY,
        });
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /; 1 imported, 0 imported before, \d not imported\.$/m);
        assert.match(result.stdout, /^Tokens of .+; 1 imported, 0 imported before, 1 not imported\.$/m);
        const next = await gatehouse.createUser();
        assert.ok(next.id > 3, `a new user after the import got id ${next.id}, a Laravel id`);
        const token = await gatehouse.issueToken(next.email, next.password);
        const tokenId = Number(token.split('|')[0]);
        assert.ok(tokenId > 2, `a new token after the import got id ${tokenId}, a Laravel id`);
      } finally {
        await gatehouse.close();
        await source.drop();
      }
    });
  });
}

/** Replaces personal_access_tokens by a view that raises an error on the row with id 3. */
async function breakTokens(dialect: DialectName, database: LaravelDatabase): Promise<void> {
  const columns =
    'id, tokenable_type, tokenable_id, name, token, last_used_at, expires_at, created_at, updated_at';
  await database.exec('alter table personal_access_tokens rename to real_tokens');
  if (dialect === 'sqlite') {
    // abs() of the smallest integer overflows: SQLite's way of failing at run time.
    await database.exec(
      `create view personal_access_tokens as select ${columns}, case when id = 3 then abs(-9223372036854775807 - 1) else abilities end as abilities from real_tokens`,
    );
  } else if (dialect === 'postgres') {
    await database.exec(
      // STABLE, so that queries which do not read the column (the count per tokenable_type) skip it.
      "create function boom() returns text language plpgsql stable as $$ begin raise exception 'disk on fire'; end $$",
    );
    await database.exec(
      `create view personal_access_tokens as select ${columns}, case when id = 3 then boom() else abilities end as abilities from real_tokens`,
    );
  } else {
    await database.exec(
      "create function boom() returns text deterministic no sql begin signal sqlstate '45000' set message_text = 'disk on fire'; return ''; end",
    );
    await database.exec(
      `create view personal_access_tokens as select ${columns}, case when id = 3 then boom() else abilities end as abilities from real_tokens`,
    );
  }
}

describe('import:laravel --dry-run writes nothing anywhere', { skip: skipPhp }, () => {
  test('in a fresh folder without APP_KEY: no database file, no storage folder, no app.key', async () => {
    const source = await createLaravelDatabase('sqlite', rowsFor('sqlite'));
    // What an operator types first, in a new folder: DATABASE_URL and STORAGE_PATH at their defaults.
    const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-dry-run-'));
    try {
      const result = await runGatehouse(['import:laravel', '--from', source.url, '--dry-run'], {}, cwd);
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /^Users: 7 in the Laravel database; 4 would be imported, 0 imported before/m,
      );
      assert.match(result.stdout, /; 5 would be imported, 0 imported before, 2 not imported\.$/m);
      assert.match(result.stdout, /^Dry run: nothing was written\.$/m);
      assert.deepEqual(readdirSync(cwd, { recursive: true }), []);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
      await source.drop();
    }
  });

  test('into an existing SQLite database: every file of its folder stays byte for byte as it was', async () => {
    const source = await createLaravelDatabase('sqlite', rowsFor('sqlite'));
    const target = await createTestDatabase('sqlite');
    const file = target.url.slice('sqlite:'.length);
    try {
      const before = await createTestApp('sqlite', { databaseUrl: target.url });
      await before.createUser({ email: 'ada@example.com' });
      await before.close();
      const folder = () =>
        readdirSync(dirname(file))
          .sort()
          .map((name) => [name, readFileSync(join(dirname(file), name)).toString('base64')]);
      const was = folder();
      assert.deepEqual(
        was.map(([name]) => name),
        ['database.sqlite'],
      );
      const result = await runCliInProcess(['import:laravel', '--from', source.url, '--dry-run'], {
        DATABASE_URL: target.url,
        APP_KEY: TEST_APP_KEY,
      });
      assert.equal(result.code, 0, result.stderr);
      // Ada is there already (the comparison read the file); the other three would be new.
      assert.match(
        result.stdout,
        /^Users: 7 in the Laravel database; 3 would be imported, 1 imported before, 3 not imported\.$/m,
      );
      assert.deepEqual(folder(), was);
    } finally {
      await source.drop();
      await target.drop();
    }
  });
});

describe('import:laravel refuses what it cannot read, writing nothing', { skip: skipPhp }, () => {
  test('a missing SQLite file, a database without Laravel tables, bad options', async () => {
    const target = await createTestDatabase('sqlite');
    const env = { DATABASE_URL: target.url, APP_KEY: TEST_APP_KEY };
    try {
      const missing = await runCliInProcess(
        ['import:laravel', '--from', 'sqlite:/nonexistent/laravel/database.sqlite'],
        env,
      );
      assert.equal(missing.code, 1);
      assert.match(
        missing.stderr,
        /^Cannot read the Laravel database \(--from\): .+ Nothing was written\.\n$/,
      );

      const other = await createTestDatabase('sqlite');
      const otherFile = openSqliteFile(other.url.slice('sqlite:'.length));
      otherFile.exec('create table notes (id integer)');
      const notLaravel = await runCliInProcess(['import:laravel', '--from', other.url], env);
      assert.equal(notLaravel.code, 1);
      assert.equal(
        notLaravel.stderr,
        'Cannot read the Laravel database (--from): it has no users table. Nothing was written.\n',
      );
      // A Laravel app whose users have UUID keys (HasUuids): Gatehouse keeps ids and its keys are integers.
      otherFile.exec(
        'create table users (id varchar primary key not null, name varchar not null, email varchar not null, password varchar not null)',
      );
      otherFile.close();
      const uuids = await runCliInProcess(['import:laravel', '--from', other.url], env);
      assert.equal(uuids.code, 1);
      assert.match(
        uuids.stderr,
        /its users\.id is varchar, not an integer \(UUID keys cannot be imported\)\. Nothing was written\.\n$/i,
      );
      await other.drop();

      for (const [args, message] of [
        [[], /^Missing --from/],
        [['--from', 'mongodb://x/y'], /^Invalid configuration: --from|--from must be/],
        [['--from', target.url], /Gatehouse's own database/],
        [
          ['--from', 'sqlite:/tmp/x.sqlite', '--admins', 'not-an-email'],
          /--admins: "not-an-email" is not a valid e-mail address/,
        ],
        [
          ['--from', 'sqlite:/tmp/x.sqlite', '--timezone', 'Mars/Olympus'],
          /--timezone: "Mars\/Olympus" is not a time zone/,
        ],
      ] as const) {
        const result = await runCliInProcess(['import:laravel', ...args], env);
        assert.equal(result.code, 1, JSON.stringify(args));
        assert.match(result.stderr, message);
        assert.ok(!result.stderr.slice(0, -1).includes('\n'), 'one line');
      }
      const help = await runCliInProcess(['import:laravel', '--help'], env);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /--dry-run/);
      assert.match(help.stdout, /--admins/);
      const { existsSync, statSync } = await import('node:fs');
      const file = target.url.slice('sqlite:'.length);
      assert.ok(!existsSync(file) || statSync(file).size === 0, 'the target was never opened');
    } finally {
      await target.drop();
    }
  });
});
