import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { loadMysql2Promise, loadPg } from '../../src/lib/packages-on-demand.ts';
import {
  createTestDatabase,
  type DialectName,
  databaseConfig,
  MYSQL_ADMIN_URL,
  mysqlAdmin,
  POSTGRES_ADMIN_URL,
  type TestDatabase,
} from './databases.ts';
import { RUN_ID, runDatabasePrefix, runFile } from './test-run.ts';

/**
 * A migrated database of its own for one test app, without paying for the migrations each time:
 * - SQLite: a copy of a template file migrated once per test run;
 * - PostgreSQL: `CREATE DATABASE … TEMPLATE` a database migrated once per test run;
 * - MariaDB/MySQL (no templates): one database per test process, migrated once, emptied (TRUNCATE,
 *   which also restarts the ids) when an app is done with it and handed to the next app.
 * Each app still starts on an empty, fully migrated database that no other live app uses. The
 * templates and the pooled databases belong to the run (scripts/test.mjs names it in
 * GATEHOUSE_TEST_RUN and drops them at its end). A test file run without the runner gets a new
 * database migrated the slow way, as before.
 */
export async function createMigratedDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (RUN_ID === null) return migratedTheSlowWay(dialect);
  if (dialect === 'sqlite') return sqliteCopy();
  if (dialect === 'postgres') return postgresClone();
  return mysqlFromPool();
}

async function migratedTheSlowWay(dialect: DialectName): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  await migrate(dialect, database.url);
  return database;
}

async function migrate(dialect: DialectName, url: string): Promise<void> {
  const handle = openDatabase(databaseConfig(dialect, url));
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
}

let sqliteTemplate: Promise<string> | undefined;

/** The run's migrated SQLite file (helpers/test-run.ts runFile: never a half-migrated template). */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= runFile('template.sqlite', (path) => migrate('sqlite', `sqlite:${path}`));
  return sqliteTemplate;
}

async function sqliteCopy(): Promise<TestDatabase> {
  const template = await sqliteTemplateFile();
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  const file = join(folder, 'database.sqlite');
  copyFileSync(template, file);
  return { url: `sqlite:${file}`, drop: async () => rmSync(folder, { recursive: true, force: true }) };
}

async function postgresAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new (loadPg().Client)({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function postgresUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

let postgresTemplate: Promise<string> | undefined;

/**
 * The run's migrated PostgreSQL template. Made by the first process to need it, under an advisory lock
 * (the others wait, then find it), under a temporary name renamed when complete: a process that dies
 * half-way leaves no template that looks finished.
 */
function postgresTemplateName(): Promise<string> {
  postgresTemplate ??= postgresAdmin(async (admin) => {
    const name = `${runDatabasePrefix()}template`;
    await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
    try {
      const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `${name}_building`;
        await admin.query(`drop database if exists ${building} with (force)`);
        await admin.query(`create database ${building}`);
        await migrate('postgres', postgresUrl(building));
        await admin.query(`alter database ${building} rename to ${name}`);
      }
    } finally {
      await admin.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
    return name;
  });
  return postgresTemplate;
}

async function postgresClone(): Promise<TestDatabase> {
  const template = await postgresTemplateName();
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`;
  await postgresAdmin((admin) => admin.query(`create database ${name} template ${template}`));
  return {
    url: postgresUrl(name),
    drop: () =>
      postgresAdmin(
        async (admin) => void (await admin.query(`drop database if exists ${name} with (force)`)),
      ),
  };
}

/** This process's emptied MariaDB databases, waiting for the next app. */
const idleMysql: string[] = [];
let mysqlCount = 0;

function mysqlUrl(name: string): string {
  const url = new URL(MYSQL_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function mysqlFromPool(): Promise<TestDatabase> {
  let name = idleMysql.pop();
  if (name === undefined) {
    name = `${runDatabasePrefix()}p${process.pid}_${++mysqlCount}`;
    await mysqlAdmin(`create database ${name}`);
    await migrate('mysql', mysqlUrl(name));
  }
  const taken = name;
  return {
    url: mysqlUrl(taken),
    async drop() {
      await emptyMysql(taken);
      idleMysql.push(taken);
    },
  };
}

/**
 * Every table but the migrator's own that holds a row or has handed out an id, truncated: empty, and
 * the ids start at 1 again. (TRUNCATE is DDL on InnoDB, tens of milliseconds a table: the untouched
 * ones are skipped.)
 */
async function emptyMysql(name: string): Promise<void> {
  const connection = await loadMysql2Promise().createConnection({
    uri: mysqlUrl(name),
    multipleStatements: true,
  });
  try {
    const [rows] = await connection.query(
      "select table_name as name, auto_increment as next from information_schema.tables where table_schema = ? and table_type = 'BASE TABLE' and table_name not in ('migrations', 'migrations_lock')",
      [name],
    );
    const tables = rows as { name: string; next: number | null }[];
    const [filled] = await connection.query(
      tables
        .map((t) => `select ${connection.escape(t.name)} as name from \`${t.name}\` having count(*) > 0`)
        .join(' union all '),
    );
    const used = new Set([
      ...(filled as { name: string }[]).map((row) => row.name),
      ...tables.filter((t) => t.next !== null && Number(t.next) > 1).map((t) => t.name),
    ]);
    if (used.size === 0) return;
    await connection.query(
      [
        'set foreign_key_checks = 0',
        ...[...used].map((t) => `truncate table \`${t}\``),
        'set foreign_key_checks = 1',
      ]
        .map((statement) => `${statement};`)
        .join('\n'),
    );
  } finally {
    await connection.end();
  }
}
