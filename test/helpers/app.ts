import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type BuildOptions, buildApp } from '../../src/app.ts';
import { type Argon2Params, createPasswordHasher } from '../../src/auth/passwords/passwords.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import type { Db } from '../../src/db/schema.ts';
import { createServices, type ServiceOverrides, type Services } from '../../src/services.ts';
import { availableDialects, type DialectName, type TestDatabase } from './databases.ts';
import { createMigratedDatabase } from './migrated-databases.ts';
import { checkResponsesAgainstOpenApi } from './openapi.ts';
import { writeTestSigningKeys } from './signing-keys.ts';
import { insertUserRow } from './users.ts';

const TEST_APP_KEY_BYTES = Buffer.alloc(32, 7);
export const TEST_APP_KEY = `base64:${TEST_APP_KEY_BYTES.toString('base64')}`;

/**
 * The argon2id cost of a test app's hasher unless it asks for another: the least argon2 accepts (8 KiB,
 * one pass), a fraction of a millisecond a hash instead of the ~30 ms of the OWASP parameters, which
 * the suite paid thousands of times for nothing it tested. What the cost itself buys is tested at the
 * real cost, asked for by name (`argon2: OWASP_ARGON2ID`): enumeration timing, the hash queue, floods,
 * rehash-on-login; servers started as processes (helpers/process.ts) and the CLI always hash at it.
 */
export const TEST_ARGON2: Argon2Params = { memoryCost: 8, timeCost: 1, parallelism: 1 };

export interface TestApp {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly config: Config;
  readonly db: Db;
  readonly dialect: DialectName;
  /** The DATABASE_URL the app runs on (for CLI commands against the same data). */
  readonly databaseUrl: string;
  /** Every JSON log line the app wrote. */
  readonly logs: string[];
  createUser(
    input?: Partial<NewTestUser>,
  ): Promise<{ id: number; email: string; password: string; name: string }>;
  /** Issues a token through POST /api/tokens; returns the plaintext. */
  issueToken(email: string, password: string, extra?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export interface NewTestUser {
  name: string;
  email: string;
  password: string;
  verified: boolean;
  panelAccess: boolean;
  locale: string;
}

let counter = 0;

export interface TestAppOptions {
  env?: Record<string, string>;
  overrides?: ServiceOverrides;
  build?: BuildOptions;
  /** Reuse an existing database (a second instance over the same data). */
  databaseUrl?: string;
  /** The hasher's argon2id cost (TEST_ARGON2 unless given; overrides.hasher wins over both). */
  argon2?: Argon2Params;
  /**
   * The app makes its OpenID signing keys at its first start, as a new installation does. Otherwise a
   * new database gets the test run's keys (helpers/signing-keys.ts) when the app has the test APP_KEY.
   */
  freshSigningKeys?: boolean;
}

/**
 * Two app instances over one migrated database (two server processes behind one load balancer), for
 * the tests of the describe() this is called in: started before them, closed after them, then
 * `cleanUp` (what they shared besides the database, e.g. their Redis keys). Read `one` and `two` inside
 * tests.
 */
export function twoInstances(
  dialect: DialectName,
  options: Omit<TestAppOptions, 'databaseUrl'> & { cleanUp?: () => Promise<void> } = {},
): { readonly one: TestApp; readonly two: TestApp } {
  let one: TestApp | undefined;
  let two: TestApp | undefined;
  before(async () => {
    one = await createTestApp(dialect, options);
    two = await createTestApp(dialect, { ...options, databaseUrl: one.databaseUrl });
  });
  after(async () => {
    await two?.close();
    await one?.close();
    await options.cleanUp?.();
  });
  const ready = (app: TestApp | undefined) => {
    if (!app) throw new Error('test apps not ready');
    return app;
  };
  return {
    get one() {
      return ready(one);
    },
    get two() {
      return ready(two);
    },
  };
}

/** A migrated database of its own (helpers/migrated-databases.ts) and an app over it, driven with app.inject(). */
export async function createTestApp(dialect: DialectName, options: TestAppOptions = {}): Promise<TestApp> {
  const database: TestDatabase | null = options.databaseUrl ? null : await createMigratedDatabase(dialect);
  const storage = mkdtempSync(join(tmpdir(), 'gatehouse-storage-'));
  const config = loadConfig(
    {
      DATABASE_URL: options.databaseUrl ?? database!.url,
      APP_KEY: TEST_APP_KEY,
      APP_URL: 'http://gatehouse.test',
      STORAGE_PATH: storage,
      LOG_LEVEL: 'info',
      // The per-IP budget (docs/security.md) counts every login from inject()'s one address, so in a suite
      // sharing one app it would depend on how many tests ran before; test/security/ sets it to test it.
      IP_AUTH_LIMIT: '0',
      ...options.env,
    },
    { readDotEnv: false },
  );
  const hasher =
    options.overrides?.hasher ??
    createPasswordHasher(config.hashConcurrency, options.argon2 ?? TEST_ARGON2, config.hashQueueMax);
  const services = createServices(config, { ...options.overrides, hasher });
  await migrateToLatest(services.database.db);
  if (database !== null && !options.freshSigningKeys) {
    await writeTestSigningKeys(services.database.db, config.appKey);
  }
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp(services, { logStream, ...options.build });
  // Every JSON answer a test receives is checked against /openapi.json (docs/reference/http-api.md).
  await checkResponsesAgainstOpenApi(app);
  const db = services.database.db;

  const testApp: TestApp = {
    app,
    services,
    config,
    db,
    dialect,
    databaseUrl: options.databaseUrl ?? database!.url,
    logs,
    async createUser(input = {}) {
      counter++;
      const user = {
        name: input.name ?? `User ${counter}`,
        email: (input.email ?? `user${counter}-${Date.now()}@example.com`).toLowerCase(),
        password: input.password ?? 'correct horse battery',
      };
      const id = await insertUserRow(db, {
        ...user,
        passwordHash: await services.hasher.hash(user.password),
        verified: input.verified !== false,
        panelAccess: input.panelAccess,
        locale: input.locale,
        now: services.clock.now(),
      });
      return { id, ...user };
    },
    async issueToken(email, password, extra = {}) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/tokens',
        payload: { email, password, device_name: 'test-device', ...extra },
      });
      if (response.statusCode !== 200)
        throw new Error(`token issue failed: ${response.statusCode} ${response.body}`);
      return response.json().token as string;
    },
    async close() {
      await app.close();
      await database?.drop();
      rmSync(storage, { recursive: true, force: true });
    },
  };
  return testApp;
}

/**
 * Runs `suite` once per available dialect (SQLite always; PostgreSQL and MariaDB when reachable,
 * required in CI), each against its own freshly migrated database: for the suites where the database
 * decides the outcome (the storage contract, races, crashes, several instances, imports, migrations,
 * test/security). Every other suite uses describeApp.
 */
export async function describeEachDialect(
  title: string,
  suite: (ctx: () => TestApp, dialect: DialectName) => void,
  options: TestAppOptions = {},
): Promise<void> {
  describeOn(await availableDialects(), title, suite, options);
}

/**
 * Runs `suite` against one test app on SQLite: the HTTP behaviour it tests is the same on every
 * dialect, and what the dialects do differently is the storage contract's to prove, on all three
 * (test/contract/storage.test.ts covers every repository function). TEST_ALL_DIALECTS=1 runs these
 * suites on every dialect as well, like describeEachDialect.
 */
export async function describeApp(
  title: string,
  suite: (ctx: () => TestApp, dialect: DialectName) => void,
  options: TestAppOptions = {},
): Promise<void> {
  describeOn(await appDialects(), title, suite, options);
}

/**
 * The dialects of describeApp, for suites that set up their apps themselves: SQLite (or all, see there).
 * SQLite alone asks no server whether it is up.
 */
export async function appDialects(): Promise<{ name: DialectName; skip: string | false }[]> {
  if (process.env['TEST_ALL_DIALECTS'] === '1') return availableDialects();
  return [{ name: 'sqlite', skip: false }];
}

function describeOn(
  dialects: { name: DialectName; skip: string | false }[],
  title: string,
  suite: (ctx: () => TestApp, dialect: DialectName) => void,
  options: TestAppOptions,
): void {
  for (const { name, skip } of dialects) {
    describe(`${title} [${name}]`, { skip }, () => {
      let current: TestApp | undefined;
      before(async () => {
        current = await createTestApp(name, options);
      });
      after(async () => {
        await current?.close();
      });
      suite(() => {
        if (!current) throw new Error('test app not ready');
        return current;
      }, name);
    });
  }
}

/** Row count of a table, for asserting that rejected requests change nothing. */
export async function countRows(
  db: Db,
  table:
    | 'users'
    | 'personal_access_tokens'
    | 'posts'
    | 'sessions'
    | 'remember_tokens'
    | 'password_reset_tokens'
    | 'mail_outbox'
    | 'audit_log',
): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
