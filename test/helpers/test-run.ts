import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMysql2Promise, loadPg } from '../../src/lib/packages-on-demand.ts';
import { MYSQL_ADMIN_URL, mysqlAvailable, POSTGRES_ADMIN_URL, postgresAvailable } from './databases.ts';

/**
 * One run of scripts/test.mjs: its id names what its test processes share (the migrated templates,
 * the pooled MariaDB databases: helpers/migrated-databases.ts), and the runner removes all of it at
 * the end. The id starts with the start time, so what a killed run left is recognised and removed by
 * a later run once it is old enough that no run can still be using it. Null outside the runner.
 */
export const RUN_ID: string | null = /^[a-z0-9]{13}$/.test(process.env['GATEHOUSE_TEST_RUN'] ?? '')
  ? process.env['GATEHOUSE_TEST_RUN']!
  : null;

/** Runs older than this are over (the whole suite takes minutes): what they left is removed. */
const ABANDONED_AFTER_MS = 6 * 3600_000;

export function newRunId(now = Date.now()): string {
  return `${now.toString(36).padStart(9, '0')}${randomBytes(2).toString('hex')}`;
}

function startOf(runId: string): number {
  return Number.parseInt(runId.slice(0, 9), 36);
}

function requireRun(): string {
  if (RUN_ID === null) throw new Error('not inside a test run (GATEHOUSE_TEST_RUN)');
  return RUN_ID;
}

/** Names of the run's server databases start with this. */
export function runDatabasePrefix(runId = requireRun()): string {
  return `gatehouse_run_${runId}_`;
}

/** The run's temporary folder (the SQLite template). */
export function runFolder(runId = requireRun()): string {
  return join(tmpdir(), `gatehouse-run-${runId}`);
}

/**
 * The path of the run's file `name` (in runFolder()), made once per run. Test processes that start at
 * once may each make it: each makes its own (`make` writes the path it is given) and renames it into
 * place, so no process ever reads a half-written file. Memoise the promise: a process asks once.
 */
export async function runFile(name: string, make: (path: string) => Promise<void>): Promise<string> {
  const folder = runFolder();
  const file = join(folder, name);
  if (existsSync(file)) return file;
  mkdirSync(folder, { recursive: true });
  const building = join(folder, `${process.pid}.${name}`);
  await make(building);
  renameSync(building, file);
  return file;
}

const RUN_DATABASE = /^gatehouse_run_([a-z0-9]{13})_/;

/** True for the run itself and for runs abandoned long ago. */
function isDone(runId: string, finished: string, now: number): boolean {
  return runId === finished || now - startOf(runId) > ABANDONED_AFTER_MS;
}

/**
 * Removes what the run `finished` made, and what runs abandoned hours ago left (a runner killed before
 * its end), on every server that is up. Runs of other people on the same servers are left alone.
 */
export async function removeRunData(finished: string, now = Date.now()): Promise<void> {
  const done = (name: string) => {
    const runId = RUN_DATABASE.exec(name)?.[1];
    return runId !== undefined && isDone(runId, finished, now);
  };
  if (await postgresAvailable()) {
    const client = new (loadPg().Client)({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        "select datname as name from pg_database where datname like 'gatehouse\\_run\\_%'",
      );
      for (const { name } of rows.filter((row) => done(row.name)))
        await client.query(`drop database if exists ${name} with (force)`);
    } finally {
      await client.end();
    }
  }
  if (await mysqlAvailable()) {
    const connection = await loadMysql2Promise().createConnection({ uri: MYSQL_ADMIN_URL });
    try {
      const [rows] = await connection.query("show databases like 'gatehouse\\_run\\_%'");
      const names = (rows as Record<string, string>[]).map((row) => Object.values(row)[0]!);
      for (const name of names.filter(done)) await connection.query(`drop database if exists \`${name}\``);
    } finally {
      await connection.end();
    }
  }
  for (const entry of readdirSync(tmpdir())) {
    const runId = /^gatehouse-run-([a-z0-9]{13})$/.exec(entry)?.[1];
    if (runId !== undefined && isDone(runId, finished, now))
      rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}
