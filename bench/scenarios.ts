import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { type LoadCase, type Measured, round, runLoad, startLoad } from './load.ts';
import { startFlags, startServer } from './processes.ts';
import type { BenchUser } from './seed.ts';
import { seedLargeSqlite } from './seed-large.ts';

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
 * Issue 7: the same bearer load on a SQLite database of `users` users and `tokens` tokens (requests
 * spread over 1,000 of them), against the small database measured just before on the running service.
 */
export async function largeDatabaseScenario(
  context: ScenarioContext,
  serviceEnv: Record<string, string>,
  smallBearer: LoadCase,
  passwordHash: string,
  sizes: { users: number; tokens: number },
  log: (line: string) => void,
) {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-bench-large-'));
  const filename = join(folder, 'large.sqlite');
  try {
    const handle = openDatabase({ dialect: 'sqlite', filename });
    await migrateToLatest(handle.db);
    await handle.close();
    log(`seeding ${sizes.users.toLocaleString('en')} users and ${sizes.tokens.toLocaleString('en')} tokens…`);
    const seed = seedLargeSqlite(filename, { ...sizes, usable: 1000, passwordHash, progress: log });
    log(`seeded in ${seed.seconds.toFixed(1)} s`);
    const service = await startServer(
      'src/server.ts',
      { ...serviceEnv, DATABASE_URL: `sqlite:${filename}` },
      startFlags(),
    );
    try {
      const large: LoadCase = {
        name: 'bearer GET /api/user (large database)',
        url: `${service.url}/api/user`,
        rotateAuthorization: seed.authorizations,
        server: service,
      };
      const small = await context.measure(smallBearer);
      const big = await context.measure(large);
      return {
        users: sizes.users,
        tokens: sizes.tokens,
        seed_seconds: round(seed.seconds, 1),
        file_mb: Math.round(statSync(filename).size / 2 ** 20),
        small_rps: small.rps,
        large_rps: big.rps,
        large_p50_ms: big.p50_ms,
        large_p99_ms: big.p99_ms,
        ratio: round(big.rps / small.rps, 3),
      };
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
