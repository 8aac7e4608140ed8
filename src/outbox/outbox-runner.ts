import type { Kysely } from 'kysely';
import type { Dialect } from '../db/connection.ts';
import type { Database } from '../db/schema.ts';
import { type Clock, HOUR } from '../lib/clock.ts';
import { type Log, silentLog } from '../lib/log.ts';
import {
  type ClaimScope,
  claimDueRows,
  type LeasedRow,
  type OutboxTable,
  pruneFinishedRows,
} from './leased-rows.ts';
import type { OutboxSettings } from './retry.ts';

export interface OutboxRunnerDeps {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly clock: Clock;
}

/**
 * The loop of a durable outbox, shared by the mail and webhook workers. Requests only insert rows (in
 * their own transaction); this claims due rows with a lease (several instances never take the same
 * row), hands them to `deliver`, and looks again on a poll, on wake(), and a few times right after a
 * row was written in a transaction, so nothing waits for the poll interval.
 */
export abstract class OutboxRunner<Row extends LeasedRow> {
  log: Log = silentLog;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopping = false;
  #lastPrune = 0;
  readonly #followUps = new Set<NodeJS.Timeout>();

  constructor(
    protected readonly base: OutboxRunnerDeps,
    readonly table: OutboxTable,
    readonly settings: OutboxSettings,
    /** Only these rows (one webhook endpoint's): a slow queue then holds back no other. */
    readonly scope?: ClaimScope,
  ) {}

  /**
   * Delivers claimed rows and records each outcome (leased-rows.ts). Rows it does not attempt because
   * `stopping()` turned true are handed back with releaseRows.
   */
  protected abstract deliver(rows: Row[], stopping: () => boolean): Promise<void>;

  get started(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * A row written in a transaction becomes visible when the caller commits, which Kysely does not let
   * us observe. Callers should wake() after their commit; in case one does not (a hook deep inside a
   * use case), the worker also looks again a few times shortly after.
   */
  wakeAfterCommit(): void {
    if (this.#followUps.size > 0) return;
    for (const delay of [25, 100, 300, 1000, 3000]) {
      const timer = setTimeout(() => {
        this.#followUps.delete(timer);
        this.wake();
      }, delay);
      timer.unref();
      this.#followUps.add(timer);
    }
  }

  /** Starts polling (and delivering what is due now). Idempotent. */
  start(log: Log = this.log): void {
    this.log = log;
    if (this.#timer !== undefined) return;
    this.#stopping = false;
    this.#timer = setInterval(() => this.wake(), this.settings.pollIntervalMs);
    // The poll alone must not keep a process alive (the CLI, a finished test run).
    this.#timer.unref();
    this.wake();
  }

  wake(): void {
    if (this.#timer === undefined || this.#stopping) return;
    if (this.#running) {
      // A pass is under way; run another right after it, so a row committed meanwhile is not left
      // waiting for the next poll.
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
  }

  /** Stops polling and waits for the delivery in flight; claimed but unattempted rows are handed back. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const timer of this.#followUps) clearTimeout(timer);
    this.#followUps.clear();
    await this.#running;
  }

  /** Delivers everything due now and resolves when nothing due is left (tests, CLI). */
  async drain(): Promise<void> {
    while (this.#running) await this.#running;
    await this.#pass();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#pass();
      } catch (error) {
        // The database itself is unreachable: nothing is lost, the next poll tries again.
        this.log.error({ err: error, outbox: this.table }, 'outbox pass failed');
      }
    } while (this.#again && !this.#stopping);
  }

  async #pass(): Promise<void> {
    const { db, dialect, clock } = this.base;
    const { table, settings } = this;
    const stopping = () => this.#stopping;
    while (!this.#stopping) {
      const { leaseMs, batchSize } = settings;
      const rows = await claimDueRows(db, dialect, table, clock.now(), leaseMs, batchSize, this.scope);
      if (rows.length === 0) break;
      await this.deliver(rows as unknown as Row[], stopping);
    }
    const now = clock.now();
    if (now - this.#lastPrune < HOUR) return;
    this.#lastPrune = now;
    await pruneFinishedRows(db, table, now - settings.retentionMs);
  }
}
