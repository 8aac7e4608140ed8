import { readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import * as argon2 from '@node-rs/argon2';
import type { HashOp, HashOutcome, HashWorkerData } from './hash-pool.ts';

/**
 * One hashing thread (hash-pool.ts starts it from this file's compiled twin in dist/): runs
 * argon2id/bcrypt synchronously, one job at a time, at a lower scheduling priority than the event loop.
 */
const data = workerData as HashWorkerData;

try {
  // Linux names the calling thread in /proc/thread-self; elsewhere the thread keeps normal priority.
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  setPriority(tid, data.nice);
} catch {}

/**
 * bcrypt only checks hashes imported from Laravel (until they are rehashed), and loading its addon
 * costs each thread about 5 MiB of resident memory for good: it is loaded on the first such check.
 */
let bcrypt: typeof import('@node-rs/bcrypt') | undefined;

function run(op: HashOp): unknown {
  if (op.op === 'argon2.hash') return argon2.hashSync(op.password, op.options);
  if (op.op === 'argon2.verify') return argon2.verifySync(op.hash, op.password);
  bcrypt ??= createRequire(import.meta.url)('@node-rs/bcrypt') as typeof import('@node-rs/bcrypt');
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
