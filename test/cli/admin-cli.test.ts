import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../src/cli/index.ts';
import { openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import type { Db } from '../../src/db/schema.ts';
import { createTestApp, TEST_APP_KEY } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { runCliInProcess, runGatehouse } from '../helpers/cli.ts';
import {
  availableDialects,
  createTestDatabase,
  databaseConfig,
  type TestDatabase,
} from '../helpers/databases.ts';
import { insertUserRow } from '../helpers/users.ts';

const APP_URL = 'https://panel.example.test';
const PASSWORD = 'correct horse battery';

const oneLine = (text: string) => text.endsWith('\n') && !text.slice(0, -1).includes('\n');

/** `node bin/gatehouse.js …` as a user runs it; stdin is not a terminal (no TTY in a spawned pipe). */
const spawned = runGatehouse;

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are the point
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const PROMPT = /(Name|Email|Password|Confirm password): /g;

/**
 * runCli in-process with a fake terminal: stdin claims to be a TTY, and each time a prompt appears on
 * stdout the next answer is typed. Returns what the terminal showed (escape sequences removed).
 */
async function typed(args: string[], answers: string[], env: Record<string, string>, cwd: string) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let shown = '';
  let err = '';
  let answered = 0;
  stdout.on('data', (chunk) => {
    shown += String(chunk);
    const prompts = shown.replace(ANSI, '').match(PROMPT)?.length ?? 0;
    while (answered < prompts && answered < answers.length) {
      const answer = answers[answered++]!;
      setImmediate(() => stdin.write(`${answer}\r`));
    }
    if (answered >= answers.length && prompts > answers.length) setImmediate(() => stdin.end());
  });
  stderr.on('data', (chunk) => (err += chunk));
  const code = await runCli(args, { stdin, stdout, stderr, env, cwd });
  return { code, stdout: shown.replace(ANSI, ''), stderr: err };
}

const inProcess = runCliInProcess;

const users = async (db: Db) => db.selectFrom('users').selectAll().orderBy('id').execute();
const audit = async (db: Db, event: string) =>
  db.selectFrom('audit_log').selectAll().where('event', '=', event).orderBy('id').execute();

for (const { name: dialect, skip } of await availableDialects()) {
  describe(`admin commands [${dialect}]`, { skip }, () => {
    let work: string;
    let database: TestDatabase;
    let db: Db;
    let close: () => Promise<void>;
    let env: Record<string, string>;

    before(async () => {
      work = mkdtempSync(join(tmpdir(), 'gatehouse-admin-cli-'));
      database = await createTestDatabase(dialect);
      env = {
        DATABASE_URL: database.url,
        APP_KEY: TEST_APP_KEY,
        APP_URL,
        STORAGE_PATH: join(work, 'storage'),
      };
      const handle = openDatabase(databaseConfig(dialect, database.url));
      await migrateToLatest(handle.db);
      db = handle.db;
      close = () => handle.close();
    });

    after(async () => {
      await close?.();
      await database?.drop();
      rmSync(work, { recursive: true, force: true });
    });

    test('make:admin with flags: the success line, a verified user the panel lets in, audited', async () => {
      const args = [
        'make:admin',
        '--name',
        'Grace Hopper',
        '--email',
        'Grace@Example.com',
        '--password',
        PASSWORD,
      ];
      const result = await spawned(args, env, work);
      assert.equal(result.stderr, '');
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `Success! grace@example.com may now log in at ${APP_URL}/admin/login\n`);
      const [grace] = await users(db);
      assert.equal(grace?.email, 'grace@example.com');
      assert.equal(grace?.name, 'Grace Hopper');
      assert.equal(grace?.can_access_panel, 1);
      assert.ok(grace?.email_verified_at);
      assert.equal(grace?.disabled_at, null);
      assert.match(grace!.password, /^\$argon2id\$/);
      const [created] = await audit(db, 'admin.created');
      assert.equal(created?.subject_id, grace!.id);
      assert.equal(created?.actor_id, null);

      // The panel accepts the new admin (same database, another process).
      const t = await createTestApp(dialect, { databaseUrl: database.url });
      try {
        const browser = new Browser(t.app);
        await browser.get('/admin/login');
        const login = await browser.post('/admin/login', { email: 'grace@example.com', password: PASSWORD });
        assert.equal(login.statusCode, 302);
        assert.equal(login.headers.location, '/admin');
      } finally {
        await t.close();
      }
    });

    test('a duplicate e-mail (any case) or bad input: one line on stderr, exit 1, nothing written', async () => {
      const before = (await users(db)).length;
      const audits = (await audit(db, 'admin.created')).length;
      const cases: [string[], RegExp][] = [
        [
          ['--name', 'Again', '--email', 'GRACE@example.com', '--password', PASSWORD],
          /^The email has already been taken\.$/,
        ],
        [
          ['--name', 'Bad', '--email', 'not-an-email', '--password', PASSWORD],
          /^The email field must be a valid email address\.$/,
        ],
        [
          ['--name', 'Short', '--email', 'short@example.com', '--password', 'abc123'],
          /^The password field must be at least 8 characters\.$/,
        ],
        [
          ['--name', 'Long', '--email', 'long@example.com', '--password', 'x'.repeat(129)],
          /^The password field must not be greater than 128 characters\.$/,
        ],
        [
          ['--name', 'Common', '--email', 'common@example.com', '--password', 'password123'],
          /appeared in a data leak/,
        ],
        [
          ['--name', 'n'.repeat(256), '--email', 'name@example.com', '--password', PASSWORD],
          /^The name field must not be greater than 255 characters\.$/,
        ],
        [
          ['--name', '', '--email', 'empty@example.com', '--password', PASSWORD],
          /^The name field is required\.$/,
        ],
        [['--name', 'X', '--email', 'x@example.com', '--password'], /argument missing/i],
      ];
      for (const [args, message] of cases) {
        const result = await inProcess(['make:admin', ...args], env, work);
        assert.equal(result.code, 1, args.join(' '));
        assert.equal(result.stdout, '');
        assert.ok(oneLine(result.stderr), result.stderr);
        assert.match(result.stderr.trim(), message);
      }
      assert.equal((await users(db)).length, before);
      assert.equal((await audit(db, 'admin.created')).length, audits);
    });

    test('without a terminal make:admin refuses to prompt (spawned: stdin is a pipe)', async () => {
      const result = await spawned(
        ['make:admin', '--name', 'Pipe', '--email', 'pipe@example.com'],
        env,
        work,
      );
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.equal(
        result.stderr,
        'Missing --password: stdin is not a terminal, so make:admin will not prompt for it.\n',
      );
      const none = await inProcess(['make:admin'], env, work);
      assert.match(none.stderr, /^Missing --name, --email, --password: stdin is not a terminal/);
      assert.equal(
        (await users(db)).some((u) => u.email === 'pipe@example.com'),
        false,
      );
    });

    test('make:admin without APP_URL names the URL the server on that PORT has: http://localhost:$PORT', async () => {
      const { APP_URL: _, ...withoutUrl } = env;
      const args = ['make:admin', '--name', 'Port Admin', '--password', PASSWORD];
      const onPort = await spawned(
        [...args, '--email', 'port@example.com'],
        { ...withoutUrl, PORT: '4123' },
        work,
      );
      assert.equal(onPort.stderr, '');
      assert.equal(
        onPort.stdout,
        'Success! port@example.com may now log in at http://localhost:4123/admin/login\n',
      );
      const usual = await spawned([...args, '--email', 'default@example.com'], withoutUrl, work);
      assert.equal(
        usual.stdout,
        'Success! default@example.com may now log in at http://localhost:3000/admin/login\n',
      );
    });

    test('on a terminal it asks for what is missing, hides the password and asks for it twice', async () => {
      const result = await typed(
        ['make:admin', '--email', 'ada@example.com'],
        ['Ada Lovelace', 'secret one two', 'secret one TWO', 'analytical engine', 'analytical engine'],
        env,
        work,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Name: /);
      assert.equal((result.stdout.match(/Password: /g) ?? []).length, 2, 'asked again after a mismatch');
      assert.equal((result.stdout.match(/Confirm password: /g) ?? []).length, 2);
      assert.match(result.stderr, /^The password field confirmation does not match\.\n$/);
      assert.doesNotMatch(result.stdout, /secret one|analytical/, 'the password never appears on screen');
      assert.match(
        result.stdout,
        /Success! ada@example\.com may now log in at https:\/\/panel\.example\.test\/admin\/login\n$/,
      );
      const ada = (await users(db)).find((u) => u.email === 'ada@example.com');
      assert.equal(ada?.name, 'Ada Lovelace');
      assert.equal(ada?.can_access_panel, 1);

      // End of input (Ctrl-D) at a prompt cancels cleanly, writing nothing.
      const cancelled = await typed(
        ['make:admin', '--name', 'Quit', '--email', 'quit@example.com'],
        [],
        env,
        work,
      );
      assert.equal(cancelled.code, 1);
      assert.match(cancelled.stderr, /^Cancelled: nothing was created\.\n$/);
      assert.equal(
        (await users(db)).some((u) => u.email === 'quit@example.com'),
        false,
      );
    });

    test('a taken e-mail is reported before the password is asked for (flag or prompt)', async () => {
      const existing = `taken.${Date.now()}@example.com`;
      assert.equal(
        (
          await inProcess(
            ['make:admin', '--name', 'First', '--email', existing, '--password', 'opening passphrase'], // no password may contain the name (docs/security.md)
            env,
            work,
          )
        ).code,
        0,
      );
      const before = (await users(db)).length;

      const byFlag = await typed(['make:admin', '--email', existing.toUpperCase()], ['Second'], env, work);
      assert.equal(byFlag.code, 1);
      assert.equal(byFlag.stderr, 'The email has already been taken.\n');
      assert.doesNotMatch(byFlag.stdout, /Name: |Password: /, 'nothing was asked');

      const byPrompt = await typed(
        ['make:admin', '--name', 'Second'],
        [existing, `fresh.${Date.now()}@example.com`, 'another passphrase', 'another passphrase'],
        env,
        work,
      );
      assert.equal(byPrompt.code, 0, byPrompt.stderr);
      assert.equal(byPrompt.stderr, 'The email has already been taken.\n');
      assert.equal((byPrompt.stdout.match(/Email: /g) ?? []).length, 2, 'asked for another address');
      assert.equal(
        (byPrompt.stdout.match(/Password: /g) ?? []).length,
        1,
        'the password only once, after that',
      );
      assert.equal((await users(db)).length, before + 1);
    });

    test('a taken e-mail is refused first, even without a terminal and without the other flags', async () => {
      // Issue 27, item 19: a scripted run (stdin a pipe) was told to give --password before it learnt
      // that the address was taken.
      const existing = `taken.early.${Date.now()}@example.com`;
      const made = await inProcess(
        ['make:admin', '--name', 'First', '--email', existing, '--password', 'opening passphrase'],
        env,
        work,
      );
      assert.equal(made.code, 0, made.stderr);
      const before = (await users(db)).length;
      for (const args of [
        ['--email', existing],
        ['--name', 'Second', '--email', existing.toUpperCase()],
      ]) {
        const refused = await inProcess(['make:admin', ...args], env, work);
        assert.equal(refused.code, 1, args.join(' '));
        assert.equal(refused.stderr, 'The email has already been taken.\n', args.join(' '));
      }
      assert.equal((await users(db)).length, before);
    });

    test('admin:grant and admin:revoke change the flag of an existing user, audited', async () => {
      const row = {
        id: await insertUserRow(db, { name: 'Plain', email: 'plain@example.com', passwordHash: 'x' }),
      };
      const flag = async () =>
        (
          await db
            .selectFrom('users')
            .select('can_access_panel')
            .where('id', '=', row.id)
            .executeTakeFirstOrThrow()
        ).can_access_panel;

      const granted = await inProcess(['admin:grant', 'PLAIN@example.com'], env, work);
      assert.equal(granted.code, 0, granted.stderr);
      assert.equal(
        granted.stdout,
        `Panel access granted: plain@example.com may now log in at ${APP_URL}/admin/login\n`,
      );
      assert.equal(await flag(), 1);
      assert.equal((await audit(db, 'admin.user.panel_granted')).at(-1)?.subject_id, row.id);
      const again = await inProcess(['admin:grant', 'plain@example.com'], env, work);
      assert.equal(again.stdout, 'plain@example.com already has panel access.\n');

      const revoked = await inProcess(['admin:revoke', 'plain@example.com'], env, work);
      assert.equal(revoked.code, 0);
      assert.equal(revoked.stdout, 'Panel access withdrawn from plain@example.com.\n');
      assert.equal(await flag(), 0);
      const [row2] = (await audit(db, 'admin.user.panel_revoked')).slice(-1);
      assert.equal(row2?.subject_id, row.id);
      assert.equal(row2?.actor_id, null);

      for (const [args, message] of [
        [['admin:grant', 'nobody@example.com'], /^No user has the e-mail address nobody@example\.com\.$/],
        [['admin:revoke', 'not an email'], /is not a valid e-mail address/],
        [['admin:grant'], /^Usage: gatehouse admin:grant <email>$/],
        [['admin:grant', 'a@example.com', 'b@example.com'], /^Usage/],
      ] as const) {
        const result = await inProcess([...args], env, work);
        assert.equal(result.code, 1, args.join(' '));
        assert.ok(oneLine(result.stderr), result.stderr);
        assert.match(result.stderr.trim(), message);
      }

      await db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', row.id).execute();
      const disabled = await inProcess(['admin:grant', 'plain@example.com'], env, work);
      assert.equal(disabled.code, 1);
      assert.match(disabled.stderr, /plain@example\.com is disabled/);
      assert.equal(await flag(), 0);
    });

    test('PANEL_EMAIL_DOMAINS: an address outside the domains is refused by make:admin and admin:grant', async () => {
      const narrowed = { ...env, PANEL_EMAIL_DOMAINS: 'staff.example' };
      const outside = await inProcess(
        ['make:admin', '--name', 'Out', '--email', 'out@example.com', '--password', PASSWORD],
        narrowed,
        work,
      );
      assert.equal(outside.code, 1);
      assert.equal(
        outside.stderr,
        'out@example.com is outside PANEL_EMAIL_DOMAINS (staff.example); the panel would refuse it.\n',
      );
      assert.equal(
        (await users(db)).some((u) => u.email === 'out@example.com'),
        false,
      );
      const grant = await inProcess(['admin:grant', 'grace@example.com'], narrowed, work);
      assert.equal(grant.code, 1);
      assert.match(grant.stderr, /outside PANEL_EMAIL_DOMAINS/);
      const inside = await inProcess(
        ['make:admin', '--name', 'In', '--email', 'ops@staff.example', '--password', PASSWORD],
        narrowed,
        work,
      );
      assert.equal(inside.code, 0, inside.stderr);
    });
  });
}
