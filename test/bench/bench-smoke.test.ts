import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/connection.ts';
import {
  createTestDatabase,
  databaseConfig,
  MYSQL_ADMIN_URL,
  mysqlAvailable,
  requireServices,
} from '../helpers/databases.ts';
import { compiled } from '../helpers/paths.ts';

async function mysqlSkip(): Promise<string | false> {
  if (await mysqlAvailable()) return false;
  if (requireServices)
    throw new Error(`MariaDB/MySQL is required (REQUIRE_SERVICES=1) but not reachable at ${MYSQL_ADMIN_URL}`);
  return `MariaDB/MySQL not reachable at ${MYSQL_ADMIN_URL}`;
}

// Decided before the first test starts: its spawnSync blocks the event loop, and a connection attempt
// made meanwhile would time out.
const mysqlSkipReason = await mysqlSkip();

const CASES = [
  'bearer GET /api/user',
  'session GET /dashboard',
  'POST /api/tokens',
  'forward-auth GET /auth/request',
  'oidc GET /api/user',
  'GET /oauth/userinfo',
  'POST /oauth/token refresh',
  'bare oidc-provider refresh',
  'POST /oauth/token client_credentials',
  'bare oidc-provider client_credentials',
  'POST /oauth/introspect',
  'client_credentials GET /api/user',
  'bare',
];

// The harness end to end, about a second per case on SQLite: it must start both servers, authenticate
// every case (a case with any non-2xx answer fails the run) and write the shape
// docs/contributing/benchmarks.md describes. Timing targets are not asserted: this machine's numbers
// belong in docs/contributing/benchmarks.md, not in a pass/fail.
test('npm run bench writes bench/results.json in the contract shape', { timeout: 120_000 }, () => {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-bench-smoke-'));
  try {
    const out = join(folder, 'results.json');
    const env = { ...process.env };
    delete env['DATABASE_URL']; // a temporary SQLite file, whatever the caller's environment says
    const run = spawnSync(
      process.execPath,
      [
        compiled('bench/run.ts'),
        '--duration',
        '1',
        '--warmup',
        '0',
        '--flood-connections',
        '10',
        '--out',
        out,
      ],
      { encoding: 'utf8', env, timeout: 110_000 },
    );
    assert.equal(run.status, 0, `bench failed:\n${run.stderr}`);
    assert.match(run.stdout, /case\s+req\/s\s+p50 ms\s+p99 ms\s+ratio to bare/);
    assert.match(run.stdout, /password hashes\/s \(argon2id m=19456 t=2 p=1/);
    assert.match(run.stdout, /flood \(10 concurrent wrong-password logins/);
    assert.match(run.stdout, /service RSS: [\d.]+ MiB/);
    assert.match(run.stdout, /POST \/oauth\/token refresh \/ bare oidc-provider: [\d.]+/);
    assert.match(run.stdout, /POST \/oauth\/token client_credentials \/ bare oidc-provider: [\d.]+/);
    assert.match(
      run.stdout,
      /authorization-code round trip \(10 browsers\): [\d.]+ flows\/s, \d+ requests each/,
    );

    const results = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(results), ['machine', 'cases', 'hash_per_s', 'extra']);
    const machine = results['machine'] as Record<string, unknown>;
    assert.deepEqual(Object.keys(machine), [
      'cpus',
      'model',
      'memory_mb',
      'node',
      'dialect',
      'load_at_start',
    ]);
    assert.equal(machine['dialect'], 'sqlite');
    assert.equal(machine['node'], process.version);

    const cases = results['cases'] as Array<Record<string, unknown>>;
    assert.deepEqual(
      cases.map((c) => c['name']),
      CASES,
    );
    for (const row of cases) {
      assert.deepEqual(Object.keys(row), ['name', 'rps', 'p50_ms', 'p99_ms', 'ratio_to_bare']);
      for (const key of ['rps', 'p50_ms', 'p99_ms', 'ratio_to_bare']) {
        assert.equal(typeof row[key], 'number', `${row['name']}.${key}`);
        assert.ok(Number.isFinite(row[key]) && (row[key] as number) >= 0, `${row['name']}.${key}`);
      }
      assert.ok((row['rps'] as number) > 0, `${row['name']} answered nothing`);
    }
    assert.equal(cases.find((c) => c['name'] === 'bare')!['ratio_to_bare'], 1);
    assert.ok(typeof results['hash_per_s'] === 'number' && results['hash_per_s'] > 0);

    const extra = results['extra'] as Record<string, Record<string, unknown>>;
    assert.equal(typeof extra['flood']!['bearer_p99_ms'], 'number');
    assert.equal(typeof extra['rss_mb']!['after_all'], 'number');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

// DATABASE_URL=mysql://… npm run bench: the same harness against MariaDB, leaving the database as found.
// The cases the database decides; the login case measures argon2id (the SQLite run above covers it, and
// the setup issues a token and logs a browser in through the service anyway).
test('npm run bench runs against a MySQL URL', { timeout: 120_000, skip: mysqlSkipReason }, async () => {
  const database = await createTestDatabase('mysql');
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-bench-smoke-'));
  try {
    const out = join(folder, 'results.json');
    const run = spawnSync(
      process.execPath,
      [
        ...[compiled('bench/run.ts'), '--duration', '1', '--warmup', '0', '--no-flood'],
        ...['--only', 'bare,bearer,session', '--out', out],
      ],
      { encoding: 'utf8', env: { ...process.env, DATABASE_URL: database.url }, timeout: 110_000 },
    );
    assert.equal(run.status, 0, `bench failed:\n${run.stderr}`);
    const results = JSON.parse(readFileSync(out, 'utf8')) as {
      machine: { dialect: string };
      cases: { name: string; rps: number }[];
    };
    assert.equal(results.machine.dialect, 'mysql');
    assert.deepEqual(
      results.cases.map((c) => c.name),
      ['bearer GET /api/user', 'session GET /dashboard', 'bare'],
    );
    for (const row of results.cases) assert.ok(row.rps > 0, `${row.name} answered nothing`);
    const handle = openDatabase(databaseConfig('mysql', database.url));
    try {
      const users = await handle.db.selectFrom('users').select('id').execute();
      assert.deepEqual(users, [], "the run's user (and its tokens and sessions) removed again");
    } finally {
      await handle.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await database.drop();
  }
});
