import { createPasswordHasher } from '../src/auth/passwords/passwords.ts';
import { round } from './load.ts';

/**
 * Raw password-hash rate of the service's hasher (argon2id, the service's parameters and
 * HASH_CONCURRENCY): enough hashes are kept queued that the semaphore is never idle, and the
 * completions within `seconds` are counted. This is the ceiling for POST /api/tokens, which
 * verifies one hash per request.
 */
export async function measureHashRate(concurrency: number, seconds: number): Promise<number> {
  const hasher = createPasswordHasher(concurrency);
  const password = 'correct horse battery staple';
  await hasher.hash(password); // warm-up: thread pool started, code loaded
  const started = performance.now();
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
  return round(done / ((performance.now() - started) / 1000), 1);
}
