import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/connection.ts';
import type { Db } from '../../src/db/schema.ts';
import { insertTokenRow } from '../helpers/api.ts';
import { TEST_APP_KEY } from '../helpers/app.ts';
import { runCliInProcess, runGatehouse } from '../helpers/cli.ts';
import {
  availableDialects,
  createTestDatabase,
  databaseConfig,
  type TestDatabase,
} from '../helpers/databases.ts';
import { ROOT } from '../helpers/paths.ts';
import { insertUserRow } from '../helpers/users.ts';

const MINUTE = 60_000;

/** Runs `node bin/gatehouse.js …` in `cwd` with exactly `env` (plus PATH), as a user would. */
const gatehouse = runGatehouse;

/** The same dispatcher in-process (no spawn): for the many --help and error cases. */
const inProcess = runCliInProcess;

const oneLine = (text: string) => text.endsWith('\n') && !text.slice(0, -1).includes('\n');

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

describe('gatehouse (spawned)', () => {
  test('--help lists every command; unknown commands fail in one line', async () => {
    const env = { APP_KEY: TEST_APP_KEY, STORAGE_PATH: join(work, 'storage') };
    const [help, unknown] = await Promise.all([
      gatehouse(['--help'], env, work),
      gatehouse(['frobnicate'], env, work),
    ]);
    assert.equal(help.code, 0, help.stderr);
    for (const name of ['migrate', 'serve', 'tokens:prune'])
      assert.match(help.stdout, new RegExp(`^  ${name} `, 'm'));
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    assert.ok(oneLine(unknown.stderr), unknown.stderr);
    assert.match(unknown.stderr, /Unknown command "frobnicate"/);
  });

  test('--help and a mistyped option load no command: the list of commands answers them', async () => {
    const record = join(work, 'imports.txt');
    const recorder = join(import.meta.dirname, 'fixtures', 'record-imports.mjs');
    const env = { APP_KEY: TEST_APP_KEY, STORAGE_PATH: join(work, 'storage'), RECORD_IMPORTS: record };
    for (const args of [['--help'], ['make:admin', '--emial', 'ada@example.com']]) {
      rmSync(record, { force: true });
      const result = await gatehouse(args, env, work, ['--import', recorder]);
      assert.equal(result.code, args.length === 1 ? 0 : 1, result.stderr);
      const loaded = readFileSync(record, 'utf8')
        .split('\n')
        .filter((url) => url.includes('/dist/src/'));
      assert.ok(
        loaded.some((url) => url.endsWith('/dist/src/cli/commands.js')),
        `the recorder saw the CLI load: ${loaded.length} modules`,
      );
      const heavy = loaded.filter((url) =>
        /\/dist\/src\/(services|server|app)\.js$|\/cli\/commands\//.test(url),
      );
      assert.deepEqual(heavy, [], `gatehouse ${args.join(' ')} loaded what only a running command needs`);
    }
  });

  test('a mistyped option is refused in one line with the option it most likely meant', async () => {
    const env = { APP_KEY: TEST_APP_KEY, STORAGE_PATH: join(work, 'storage') };
    const result = await gatehouse(['make:admin', '--emial', 'ada@example.com'], env, work);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'Unknown option "--emial" for make:admin. Did you mean "--email"? Run "gatehouse make:admin --help".\n',
    );
  });

  test('an option that takes one value, given twice, is refused in one line; a list option may repeat', async () => {
    // Before: parseArgs kept the last value silently (`clients:create --name X --name Y` registered "Y").
    const env = { APP_KEY: TEST_APP_KEY, STORAGE_PATH: join(work, 'storage') };
    const twice = await gatehouse(
      ['make:admin', '--email', 'a@example.com', '--email', 'b@example.com'],
      env,
      work,
    );
    assert.equal(twice.code, 1);
    assert.equal(twice.stdout, '');
    assert.equal(twice.stderr, '--email was given more than once; give it once.\n');
    const help = await gatehouse(['clients:create', '--help'], env, work);
    assert.equal(help.code, 0, help.stderr);
    const lists = await gatehouse(
      [
        'clients:create',
        '--name',
        'Twice',
        '--redirect-uri',
        'https://a.example/cb',
        '--redirect-uri',
        'https://b.example/cb',
        '--json',
      ],
      env,
      work,
    );
    assert.equal(lists.code, 0, lists.stderr);
    assert.deepEqual(JSON.parse(lists.stdout).redirect_uris, [
      'https://a.example/cb',
      'https://b.example/cb',
    ]);
  });

  test('an invalid DATABASE_URL stops with one line naming it, a non-zero exit and nothing written', async () => {
    const storage = join(work, 'fresh-storage');
    const result = await gatehouse(
      ['migrate'],
      { DATABASE_URL: 'mongodb://localhost/app', STORAGE_PATH: storage },
      work,
    );
    assert.notEqual(result.code, 0);
    assert.equal(result.stdout, '');
    assert.ok(oneLine(result.stderr), result.stderr);
    assert.match(result.stderr, /DATABASE_URL/);
    assert.ok(!existsSync(storage), 'no storage folder or generated APP_KEY left behind');
  });

  test('migrate, then tokens:prune deletes only expired tokens', async () => {
    const file = join(work, 'cli.sqlite');
    const env = {
      DATABASE_URL: `sqlite:${file}`,
      APP_KEY: TEST_APP_KEY,
      STORAGE_PATH: join(work, 'storage'),
    };
    const migrated = await gatehouse(['migrate'], env, work);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /^Migrated: .*create_users_table.*create_personal_access_tokens_table/);

    const database = openDatabase({ dialect: 'sqlite', filename: file });
    try {
      const ids = await seedTokens(database.db);
      const pruned = await gatehouse(['tokens:prune'], env, work);
      assert.equal(pruned.code, 0, pruned.stderr);
      assert.equal(pruned.stdout, 'Pruned 2 expired tokens.\n');
      assert.deepEqual(await remaining(database.db), [ids.live, ids.future, ids.ancientForever]);

      // TOKEN_EXPIRATION=null: age alone no longer expires anything; expires_at still does.
      const again = await inProcess(['tokens:prune'], { ...env, TOKEN_EXPIRATION: 'null' }, work);
      assert.equal(again.stdout, 'Pruned 0 expired tokens.\n');
    } finally {
      await database.close();
    }
  });
});

/**
 * Five tokens: expired by expires_at, expired by age (TOKEN_EXPIRATION default 525960 min), live,
 * expiring in the future, and one past TOKEN_EXPIRATION only under the default — kept alive here by
 * being created 10 minutes short of it.
 */
async function seedTokens(db: Db) {
  const now = Date.now();
  const userId = await insertUserRow(db, { email: `prune-${now}@example.com`, passwordHash: 'x', now });
  const insert = async (name: string, createdAt: number, expiresAt: number | null) =>
    (await insertTokenRow(db, { userId, entropy: name, name, createdAt, expiresAt })).id;
  return {
    expired: await insert('expired', now - 10 * MINUTE, now - MINUTE),
    old: await insert('old', now - 525960 * MINUTE - MINUTE, null),
    live: await insert('live', now - MINUTE, null),
    future: await insert('future', now - MINUTE, now + 60 * MINUTE),
    ancientForever: await insert('nearly-old', now - 525950 * MINUTE, null),
  };
}

async function remaining(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('personal_access_tokens').select('id').orderBy('id').execute();
  return rows.map((r) => r.id);
}

describe('gatehouse (in-process dispatcher)', () => {
  test('--help works on every command', async () => {
    const { commands } = await import('../../src/cli/index.ts');
    assert.ok(commands.length >= 3);
    for (const command of commands) {
      for (const flag of ['--help', '-h']) {
        const result = await inProcess([command.name, flag], {}, work);
        assert.equal(result.code, 0, `${command.name} ${flag}: ${result.stderr}`);
        assert.match(result.stdout, new RegExp(`^Usage: gatehouse ${command.name}`), command.name);
        assert.match(result.stdout, /--help/);
      }
      // Every option and argument is described, not merely named.
      const { stdout } = await inProcess([command.name, '--help'], {}, work);
      for (const [name, spec] of Object.entries(command.options ?? {})) {
        const flag = `--${name}${spec.type === 'string' ? ' <value>' : ''}`;
        assert.match(
          stdout,
          new RegExp(`^  ${flag} +\\S.{10,}$`, 'm'),
          `${command.name} ${flag} has a description`,
        );
      }
      for (const arg of command.usage.match(/<[a-z]+>/g) ?? []) {
        assert.match(
          stdout,
          new RegExp(`^  ${arg} +\\S.{10,}$`, 'm'),
          `${command.name} ${arg} has a description`,
        );
      }
    }
  });

  test('a DATABASE_URL into a missing folder fails in one line naming the folder, creating nothing', async () => {
    const missing = join(work, 'typo-volume');
    const result = await inProcess(
      ['migrate'],
      {
        APP_KEY: TEST_APP_KEY,
        STORAGE_PATH: join(work, 'storage'),
        DATABASE_URL: `sqlite:${missing}/db.sqlite`,
      },
      work,
    );
    assert.equal(result.code, 1);
    assert.ok(oneLine(result.stderr), result.stderr);
    assert.match(result.stderr, /DATABASE_URL names a folder that does not exist: .*typo-volume/);
    assert.equal(existsSync(missing), false);
  });

  test('--version prints the package version; a mistyped command gets a suggestion', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v']) {
      const result = await inProcess([flag], {}, work);
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `gatehouse ${pkg.version}\n`);
    }
    for (const [typed, meant] of [
      ['make-admin', 'make:admin'],
      ['migrat', 'migrate'],
      ['token:prune', 'tokens:prune'],
      ['prune', null],
      ['admin:grnat', 'admin:grant'],
      ['xyzzy', null],
    ] as const) {
      const result = await inProcess([typed], {}, work);
      assert.equal(result.code, 1);
      assert.ok(oneLine(result.stderr), result.stderr);
      if (meant) assert.match(result.stderr, new RegExp(`Did you mean "${meant}"\\?`), typed);
      else assert.doesNotMatch(result.stderr, /Did you mean/, typed);
    }
  });

  test('mistyped options get a suggestion when one is close, in one line', async () => {
    for (const [args, meant] of [
      [['make:admin', '--pasword=x'], '--password'],
      [['make:admin', '--Email', 'a@example.com'], '--email'],
      [['import:laravel', '--dryrun'], '--dry-run'],
      [['import:laravel', '--admin', 'a@example.com'], '--admins'],
      [['two-factor:disable', '--hepl'], '--help'],
      [['make:admin', '--frobnicate'], null],
      [['migrate', '-x'], null],
    ] as const) {
      const result = await inProcess([...args], {}, work);
      assert.equal(result.code, 1, args.join(' '));
      assert.ok(oneLine(result.stderr), result.stderr);
      assert.match(result.stderr, new RegExp(`gatehouse ${args[0]} --help`), args.join(' '));
      if (meant) assert.match(result.stderr, new RegExp(`Did you mean "${meant}"\\?`), args.join(' '));
      else assert.doesNotMatch(result.stderr, /Did you mean/, args.join(' '));
    }
  });

  test('bad options and a missing command fail with a non-zero exit', async () => {
    const bogus = await inProcess(['migrate', '--bogus'], {}, work);
    assert.equal(bogus.code, 1);
    assert.ok(oneLine(bogus.stderr), bogus.stderr);
    assert.match(bogus.stderr, /--bogus.*gatehouse migrate --help/);
    const none = await inProcess([], {}, work);
    assert.equal(none.code, 1);
    assert.match(none.stdout, /^Usage: gatehouse <command>/);
    assert.equal(none.stderr, 'Missing command. Run "gatehouse --help" for the list.\n');
  });

  test('an unreachable database fails migrate in one line', async () => {
    const result = await inProcess(
      ['migrate'],
      {
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing',
        APP_KEY: TEST_APP_KEY,
        STORAGE_PATH: join(work, 's'),
      },
      work,
    );
    assert.equal(result.code, 1);
    assert.ok(oneLine(result.stderr), result.stderr);
    assert.match(result.stderr, /^migrate failed: /);
  });

  test('invalid lifetimes are named too', async () => {
    for (const [variable, value] of [
      ['TOKEN_EXPIRATION', 'soon'],
      ['SESSION_LIFETIME', '2h'],
      ['PORT', 'http'],
    ]) {
      const result = await inProcess(['tokens:prune'], { [variable!]: value!, APP_KEY: TEST_APP_KEY }, work);
      assert.equal(result.code, 1);
      assert.ok(oneLine(result.stderr), result.stderr);
      assert.match(result.stderr, new RegExp(`^Invalid configuration: ${variable} `));
    }
  });
});

for (const { name, skip } of await availableDialects()) {
  describe(`migrate and tokens:prune on ${name}`, { skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(name);
    });
    after(async () => {
      await database?.drop();
    });

    test('migrate applies every migration once; prune removes only expired tokens', async () => {
      const env = {
        DATABASE_URL: database.url,
        APP_KEY: TEST_APP_KEY,
        STORAGE_PATH: join(work, `s-${name}`),
      };
      const first = await inProcess(['migrate'], env, work);
      assert.equal(first.code, 0, first.stderr);
      const migrations = readdirSync(join(ROOT, 'src/db/migrations')).filter((f) => /^\d{4}_.*\.ts$/.test(f));
      assert.equal(
        first.stdout
          .replace(/^Migrated: /, '')
          .trim()
          .split(', ').length,
        migrations.length,
      );
      const second = await inProcess(['migrate'], env, work);
      assert.equal(second.stdout, 'Nothing to migrate.\n');

      const handle = openDatabase(databaseConfig(name, database.url));
      try {
        const ids = await seedTokens(handle.db);
        const pruned = await inProcess(['tokens:prune'], env, work);
        assert.equal(pruned.stdout, 'Pruned 2 expired tokens.\n');
        assert.deepEqual(await remaining(handle.db), [ids.live, ids.future, ids.ancientForever]);
        const withTen = await inProcess(['tokens:prune'], { ...env, TOKEN_EXPIRATION: '10' }, work);
        assert.equal(withTen.stdout, 'Pruned 1 expired token.\n', 'only the fresh ones survive 10 minutes');
        assert.deepEqual(await remaining(handle.db), [ids.live, ids.future]);
      } finally {
        await handle.close();
      }
    });
  });
}
