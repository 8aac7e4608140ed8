import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseConfig } from '../../src/config.ts';
import { loadMysql2Promise, loadPg } from '../../src/lib/packages-on-demand.ts';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

export const POSTGRES_ADMIN_URL =
  process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
/** A MariaDB (or MySQL) account that may create and drop databases; the path names none. */
export const MYSQL_ADMIN_URL = process.env['TEST_MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306/';
export const REDIS_TEST_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const requireServices = process.env['REQUIRE_SERVICES'] === '1';

/** The DatabaseConfig that `url` (of createTestDatabase) stands for, to open it without a whole Config. */
export function databaseConfig(dialect: DialectName, url: string): DatabaseConfig {
  return dialect === 'sqlite' ? { dialect, filename: url.slice('sqlite:'.length) } : { dialect, url };
}

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

let postgresUp: Promise<boolean> | undefined;

export function postgresAvailable(): Promise<boolean> {
  postgresUp ??= (async () => {
    // A server that is down refuses at once; the wait is for one that is merely slow to answer (a
    // machine loaded by other work), which must not count as absent under REQUIRE_SERVICES=1.
    const client = new (loadPg().Client)({
      connectionString: POSTGRES_ADMIN_URL,
      connectionTimeoutMillis: 10_000,
    });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return postgresUp;
}

let mysqlUp: Promise<boolean> | undefined;

export function mysqlAvailable(): Promise<boolean> {
  mysqlUp ??= (async () => {
    try {
      const connection = await loadMysql2Promise().createConnection({
        uri: MYSQL_ADMIN_URL,
        connectTimeout: 10_000,
      });
      await connection.query('select 1');
      await connection.end();
      return true;
    } catch {
      return false;
    }
  })();
  return mysqlUp;
}

/** One statement on the MySQL server as its admin account (create/drop database). */
export async function mysqlAdmin(statement: string): Promise<void> {
  const connection = await loadMysql2Promise().createConnection({ uri: MYSQL_ADMIN_URL });
  try {
    await connection.query(statement);
  } finally {
    await connection.end();
  }
}

/**
 * A real database of its own for one suite: a SQLite file in a temp folder, or a fresh PostgreSQL or
 * MariaDB/MySQL database.
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const folder = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
    return {
      url: `sqlite:${join(folder, 'database.sqlite')}`,
      drop: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  if (dialect === 'mysql') return createMysqlDatabase();
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`;
  const admin = new (loadPg().Client)({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new (loadPg().Client)({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

async function createMysqlDatabase(): Promise<TestDatabase> {
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`;
  // The server's default character set is whatever it was installed with; the migrations set their
  // own per table (db/mysql-schema.ts), so this deliberately does not.
  await mysqlAdmin(`create database ${name}`);
  const url = new URL(MYSQL_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => mysqlAdmin(`drop database if exists ${name}`) };
}

/**
 * Which dialects a suite runs on. PostgreSQL and MariaDB/MySQL are skipped with a one-line reason
 * when absent, unless REQUIRE_SERVICES=1 (CI), where their absence fails the run.
 */
export async function availableDialects(): Promise<{ name: DialectName; skip: string | false }[]> {
  const [pgUp, mysqlIsUp] = await Promise.all([postgresAvailable(), mysqlAvailable()]);
  if (!pgUp && requireServices)
    throw new Error(`PostgreSQL is required (REQUIRE_SERVICES=1) but not reachable at ${POSTGRES_ADMIN_URL}`);
  if (!mysqlIsUp && requireServices)
    throw new Error(`MariaDB/MySQL is required (REQUIRE_SERVICES=1) but not reachable at ${MYSQL_ADMIN_URL}`);
  return [
    { name: 'sqlite', skip: false },
    { name: 'postgres', skip: pgUp ? false : `PostgreSQL not reachable at ${POSTGRES_ADMIN_URL}` },
    { name: 'mysql', skip: mysqlIsUp ? false : `MariaDB/MySQL not reachable at ${MYSQL_ADMIN_URL}` },
  ];
}
