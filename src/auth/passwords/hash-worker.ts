import { readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type * as Argon2 from '@node-rs/argon2';
import type * as Bcrypt from '@node-rs/bcrypt';
import type { HashOp, HashOutcome, HashWorkerData } from './hash-pool.ts';

/**
 * One hashing thread (hash-pool.ts starts it): runs argon2id/bcrypt synchronously, one job at a time,
 * at a lower scheduling priority than the event loop. It runs without the TypeScript loader (compiled
 * by the pool), so the bindings are resolved from the pool's module, not from the working directory.
 */
const data = workerData as HashWorkerData;
const load = createRequire(data.resolveFrom);
const argon2 = load('@node-rs/argon2') as typeof Argon2;
const bcrypt = load('@node-rs/bcrypt') as typeof Bcrypt;

try {
  // Linux names the calling thread in /proc/thread-self; elsewhere the thread keeps normal priority.
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  setPriority(tid, data.nice);
} catch {}

function run(op: HashOp): unknown {
  if (op.op === 'argon2.hash') return argon2.hashSync(op.password, op.options);
  if (op.op === 'argon2.verify') return argon2.verifySync(op.hash, op.password);
  return bcrypt.verifySync(op.password, op.hash);
}

const port = parentPort!;
port.on('message', (op: HashOp) => {
  let outcome: HashOutcome;
  try {
    outcome = { result: run(op) };
  } catch (error) {
    outcome = { error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(outcome);
});
