import { Worker } from 'node:worker_threads';
import type { Options as Argon2Options } from '@node-rs/argon2';

/** What a hashing thread can do: argon2id hash/verify, and bcrypt verify for imported hashes. */
export type HashOp =
  | { op: 'argon2.hash'; password: string; options: Argon2Options }
  | { op: 'argon2.verify'; hash: string; password: string }
  | { op: 'bcrypt.verify'; hash: string; password: string };

/** A thread's answer to one job. */
export type HashOutcome = { result: unknown; error?: undefined } | { error: string; result?: undefined };

export interface HashWorkerData {
  readonly nice: number;
}

/**
 * The thread's code: hash-worker.ts, compiled beside this module into dist/ like every other file
 * (scripts/build.mjs), so the thread loads plain JavaScript and needs no loader of its own.
 */
const WORKER_FILE = new URL('./hash-worker.js', import.meta.url);

/**
 * Niceness of the hashing threads. A password hash is ~30 ms of pure CPU; at normal priority two of
 * them take both cores of a small machine from the event loop, and during a flood of logins token
 * checks waited behind them (bench: bearer GET /api/user p99 doubled). At nice 10 the scheduler gives
 * the event loop the CPU whenever it has work; hashing still gets every idle cycle.
 */
const HASH_THREAD_NICE = 10;

interface Slot {
  readonly worker: Worker;
  job: { resolve: (value: unknown) => void; reject: (error: Error) => void } | null;
}

/**
 * Threads that run argon2id/bcrypt synchronously, one job each at a time. One pool per process, grown
 * to the largest concurrency any hasher asked for; each hasher's semaphore still bounds its own jobs.
 * Idle threads do not keep the process alive; a thread with a job does.
 */
class HashPool {
  readonly #slots: Slot[] = [];
  readonly #queue: Array<{ op: HashOp; resolve: (value: unknown) => void; reject: (error: Error) => void }> =
    [];
  #size = 0;

  grow(size: number): void {
    this.#size = Math.max(this.#size, size);
  }

  run(op: HashOp): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ op, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const slot = this.#slots.find((s) => s.job === null) ?? this.#spawn();
      if (slot === null) return;
      const next = this.#queue.shift()!;
      slot.job = { resolve: next.resolve, reject: next.reject };
      slot.worker.ref();
      slot.worker.postMessage(next.op);
    }
  }

  #spawn(): Slot | null {
    if (this.#slots.length >= this.#size) return null;
    const data: HashWorkerData = { nice: HASH_THREAD_NICE };
    // No execArgv: the process's flags (--test, an --import) are nothing the thread needs.
    const worker = new Worker(WORKER_FILE, { execArgv: [], workerData: data });
    const slot: Slot = { worker, job: null };
    const settle = (outcome: HashOutcome) => {
      const job = slot.job;
      slot.job = null;
      worker.unref();
      if (outcome.error !== undefined) job?.reject(new Error(outcome.error));
      else job?.resolve(outcome.result);
      this.#dispatch();
    };
    worker.on('message', settle);
    // A thread that dies fails its job and is replaced on the next dispatch.
    const lost = (error: unknown) => {
      const index = this.#slots.indexOf(slot);
      if (index === -1) return;
      this.#slots.splice(index, 1);
      settle({ error: error instanceof Error ? error.message : 'hashing thread exited' });
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    worker.unref();
    this.#slots.push(slot);
    return slot;
  }
}

const shared = new HashPool();

/** The process's hashing threads, at least `size` of them once busy enough. */
export function hashPool(size: number): { run(op: HashOp): Promise<unknown> } {
  shared.grow(size);
  return shared;
}
