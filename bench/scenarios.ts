import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { type LoadCase, type Measured, round, runLoad, startLoad } from './load.ts';
import { startFlags, startServer } from './processes.ts';
import type { BenchUser } from './seed.ts';
import { MEMBERSHIPS_PER_LOAD_USER, seedLargeSqlite } from './seed-large.ts';

export interface ScenarioContext {
  readonly connections: number;
  readonly duration: number;
  readonly warmup: number;
  /** Measures a case after its warm-up, failing on any unexpected answer. */
  readonly measure: (load: LoadCase) => Promise<Measured>;
}

/**
 * Issue 7: `connections` clients keep sending wrong-password logins (throttle relaxed, so every one
 * costs a full argon2id verification) while bearer GET /api/user is measured. The hasher's semaphore
 * queues the logins, so token checks keep their share of the CPU.
 */
export async function floodScenario(
  context: ScenarioContext,
  serviceUrl: string,
  user: BenchUser,
  bearer: LoadCase,
  floodConnections: number,
  hashPerSecond: number,
) {
  const flood = startLoad(
    {
      name: 'wrong-password flood',
      url: `${serviceUrl}/api/tokens`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: user.email, password: 'wrong password', device_name: 'flood' }),
      expectStatus: 401,
    },
    { connections: floodConnections, duration: context.duration + 1 },
  );
  await sleep(500); // the hash queue fills first; the bearer load is measured inside the flood
  const during = await runLoad(bearer, { connections: context.connections, duration: context.duration });
  const wrong = await flood.result;
  // The queued logins still finish after the clients hang up; let them drain before anything else.
  await sleep(Math.min(30_000, (floodConnections / Math.max(1, hashPerSecond)) * 1000 + 500));
  return {
    flood_connections: floodConnections,
    wrong_logins_per_s: wrong.rps,
    wrong_login_p99_ms: wrong.p99_ms,
    bearer_rps: during.rps,
    bearer_p50_ms: during.p50_ms,
    bearer_p99_ms: during.p99_ms,
    bearer_unexpected: during.unexpected,
  };
}

/**
 * Issue 7: bearer GET /api/user on a SQLite database of `users` users and `tokens` tokens (and, issue 32,
 * `organizations` organizations with `memberships` memberships) against a small one (1,000 of each), with the very same load: requests spread over 1,000 tokens in both, so
 * the client does the same work and only the size of the database differs. One service per database,
 * measured in turn, `rounds` times; the best of each counts (as for the cases).
 */
export async function largeDatabaseScenario(
  context: ScenarioContext,
  serviceEnv: Record<string, string>,
  passwordHash: string,
  sizes: { users: number; tokens: number; organizations: number; memberships: number; rounds: number },
  log: (line: string) => void,
) {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-bench-large-'));
  const usable = 1000;
  const seeded = async (
    name: string,
    users: number,
    tokens: number,
    organizations: number,
    memberships: number,
  ) => {
    const filename = join(folder, `${name}.sqlite`);
    const handle = openDatabase({ dialect: 'sqlite', filename });
    await migrateToLatest(handle.db);
    await handle.close();
    log(`seeding ${users.toLocaleString('en')} users and ${tokens.toLocaleString('en')} tokens…`);
    const seed = seedLargeSqlite(filename, {
      users,
      tokens,
      usable,
      passwordHash,
      organizations,
      memberships,
      progress: log,
    });
    log(`seeded in ${seed.seconds.toFixed(1)} s`);
    const service = await startServer(
      'src/server.ts',
      { ...serviceEnv, DATABASE_URL: `sqlite:${filename}` },
      startFlags(),
    );
    const load: LoadCase = {
      name: `bearer GET /api/user (${name} database)`,
      url: `${service.url}/api/user`,
      rotateAuthorization: seed.authorizations,
      server: service,
    };
    return { filename, seed, service, load };
  };
  const services: Array<{ stop(): Promise<void> }> = [];
  try {
    // Both databases give each user the load signs in as the same three memberships (the answers are
    // of one size); only the number of rows around them differs.
    const small = await seeded('small', usable, usable, 100, usable * MEMBERSHIPS_PER_LOAD_USER);
    services.push(small.service);
    const large = await seeded('large', sizes.users, sizes.tokens, sizes.organizations, sizes.memberships);
    services.push(large.service);
    let bestSmall: Measured | null = null;
    let bestLarge: Measured | null = null;
    for (let round = 0; round < sizes.rounds; round++) {
      const s = await context.measure(small.load);
      const l = await context.measure(large.load);
      if (bestSmall === null || s.rps > bestSmall.rps) bestSmall = s;
      if (bestLarge === null || l.rps > bestLarge.rps) bestLarge = l;
    }
    return {
      users: sizes.users,
      tokens: sizes.tokens,
      organizations: sizes.organizations,
      memberships: sizes.memberships,
      seed_seconds: round(large.seed.seconds, 1),
      file_mb: Math.round(statSync(large.filename).size / 2 ** 20),
      small_rps: bestSmall!.rps,
      large_rps: bestLarge!.rps,
      large_p50_ms: bestLarge!.p50_ms,
      large_p99_ms: bestLarge!.p99_ms,
      ratio: round(bestLarge!.rps / bestSmall!.rps, 3),
    };
  } finally {
    for (const service of services) await service.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
