import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export type DialectName = 'sqlite' | 'postgres';

export const POSTGRES_ADMIN_URL =
  process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_TEST_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const requireServices = process.env['REQUIRE_SERVICES'] === '1';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

let postgresUp: Promise<boolean> | undefined;

export function postgresAvailable(): Promise<boolean> {
  postgresUp ??= (async () => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
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

/** A real database of its own for one suite: a SQLite file in a temp folder, or a fresh PostgreSQL database. */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const folder = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
    return {
      url: `sqlite:${join(folder, 'database.sqlite')}`,
      drop: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/**
 * Which dialects a suite runs on. PostgreSQL is skipped with a one-line reason when absent,
 * unless REQUIRE_SERVICES=1 (CI), where its absence fails the run.
 */
export async function availableDialects(): Promise<{ name: DialectName; skip: string | false }[]> {
  const pgUp = await postgresAvailable();
  if (!pgUp && requireServices)
    throw new Error(`PostgreSQL is required (REQUIRE_SERVICES=1) but not reachable at ${POSTGRES_ADMIN_URL}`);
  return [
    { name: 'sqlite', skip: false },
    { name: 'postgres', skip: pgUp ? false : `PostgreSQL not reachable at ${POSTGRES_ADMIN_URL}` },
  ];
}
