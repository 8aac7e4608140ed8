import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';
import type { CheckpointThreadData } from './sqlite-checkpoint-thread.ts';

/*
 * Why a busy SQLite database checkpoints in a thread of its own.
 *
 * In WAL mode a commit appends its pages to the -wal file; by default the commit that takes the file
 * past 1,000 pages then copies them all into the database file and fsyncs it — on the connection's
 * thread, which is the event loop: every request waits for the disk. SQLite's documentation names the
 * cure (wal.html, "Application-Initiated Checkpoints"): turn automatic checkpoints down and run them from
 * another thread. Here a worker thread with its own connection checkpoints every 100 ms, so the pages
 * are copied and the file synced beside the event loop, not in it (docs/contributing/benchmarks.md
 * "Checkpoints"). The service's connection keeps an automatic checkpoint at 4,000 pages as a backstop,
 * in case the thread falls behind or is gone.
 *
 * A thread costs ~10 MiB and tens of milliseconds of CPU to start, more than a small database ever
 * saves (a CLI command, each test's app), so it starts only once the database has shown it is busy:
 * a look at the -wal file every two seconds, and the thread once it has grown to the size at which
 * SQLite would have checkpointed on its own.
 */
const THREAD_FILE = new URL('./sqlite-checkpoint-thread.js', import.meta.url);
/** SQLite's own automatic checkpoint, in pages (its default). */
const DEFAULT_AUTOCHECKPOINT = 1000;
const BACKSTOP_AUTOCHECKPOINT = 4000;
const CHECKPOINT_EVERY_MS = 100;
const LOOK_EVERY_MS = 2000;

export interface CheckpointOptions {
  /** How often the -wal file's size is looked at before the thread starts (tests shorten it). */
  readonly lookEveryMs?: number;
}

export class SqliteCheckpoints {
  readonly #wal: string;
  readonly #busyBytes: number;
  #look: NodeJS.Timeout | null = null;
  #thread: Worker | null = null;
  #closed = false;

  constructor(
    readonly filename: string,
    readonly database: SqliteDatabase.Database,
    options: CheckpointOptions = {},
  ) {
    this.#wal = `${filename}-wal`;
    const pageSize = database.pragma('page_size', { simple: true }) as number;
    // Each WAL frame is a page and a 24-byte header.
    this.#busyBytes = DEFAULT_AUTOCHECKPOINT * (pageSize + 24);
    this.#look = setInterval(() => this.#lookAtWal(), options.lookEveryMs ?? LOOK_EVERY_MS);
    this.#look.unref();
  }

  /** Whether the checkpointing thread runs (test/unit/sqlite-checkpoints.test.ts asks). */
  get threaded(): boolean {
    return this.#thread !== null;
  }

  #lookAtWal(): void {
    let size = 0;
    try {
      size = statSync(this.#wal).size;
    } catch {
      return; // no -wal file yet
    }
    if (size >= this.#busyBytes) this.#start();
  }

  #stopLooking(): void {
    if (this.#look !== null) clearInterval(this.#look);
    this.#look = null;
  }

  #start(): void {
    this.#stopLooking();
    const data: CheckpointThreadData = { filename: this.filename, everyMs: CHECKPOINT_EVERY_MS };
    // No execArgv: the process's flags (--test, an --import) are nothing the thread needs.
    const thread = new Worker(THREAD_FILE, { execArgv: [], workerData: data });
    thread.unref();
    this.#thread = thread;
    thread.once('message', () => {
      if (this.#thread === thread && !this.#closed) {
        this.database.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT}`);
      }
    });
    // A thread that fails leaves the connection checkpointing on its own again, as before it started.
    const lost = () => {
      if (this.#thread !== thread) return;
      this.#thread = null;
      if (!this.#closed) this.database.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    };
    thread.on('error', lost);
    thread.on('exit', lost);
  }

  /**
   * Stops looking and ends the thread, its connection closed first: the service's connection must be
   * the last one open for SQLite to fold the WAL back into the database file when it closes.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopLooking();
    const thread = this.#thread;
    if (thread === null) return;
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    // Held until it has gone: an unreferenced thread would let the process end before its exit.
    thread.ref();
    thread.postMessage('close');
    await exited;
  }
}
