import { createPasswordHasher } from '../src/auth/passwords/passwords.ts';
import { type Measured, round } from './load.ts';

/**
 * Raw password-hash rate of the service's hasher (argon2id, the service's parameters and
 * HASH_CONCURRENCY): enough hashes are kept queued that the semaphore is never idle, and the
 * completions within `seconds` are counted, with the CPU time they took. This is the ceiling for POST /api/tokens, which
 * verifies one hash per request.
 */
export async function measureHashRate(
  concurrency: number,
  seconds: number,
): Promise<{ perSecond: number; cpuUsPerHash: number }> {
  const hasher = createPasswordHasher(concurrency);
  const password = 'correct horse battery staple';
  await hasher.hash(password); // warm-up: thread pool started, code loaded
  const started = performance.now();
  // This process does nothing else meanwhile: its CPU time is the hashing threads' (and the dispatch).
  const cpuBefore = process.cpuUsage();
  const deadline = started + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await hasher.hash(password);
      done++;
    }
  };
  // Twice the concurrency in flight: the semaphore always has the next job waiting.
  await Promise.all(Array.from({ length: concurrency * 2 }, worker));
  const cpu = process.cpuUsage(cpuBefore);
  return {
    perSecond: round(done / ((performance.now() - started) / 1000), 1),
    cpuUsPerHash: round((cpu.user + cpu.system) / done, 1),
  };
}

/**
 * CPU per hash ÷ CPU per login (the service's and the load generator's, which share the cores): the
 * login's share of the hash rate when both have the machine to themselves, whatever else runs on it.
 */
export function loginRatioByCpu(login: Measured | undefined, cpuUsPerHash: number): number | null {
  if (login?.cpu_us_per_req == null) return null;
  return round(cpuUsPerHash / (login.cpu_us_per_req + login.client_cpu_us_per_req), 3);
}
