import type { Kysely } from 'kysely';
import type { Dialect } from '../db/connection.ts';
import type { Database, Db } from '../db/schema.ts';
import { type Clock, HOUR } from '../lib/clock.ts';
import { MailHeaderError, type MailMessage } from './message.ts';
import {
  claimDueRows,
  markFailed,
  markSent,
  pruneFinishedRows,
  releaseRows,
  scheduleRetry,
} from './outbox.repository.ts';
import type { OutboxRow } from './outbox.table.ts';
import {
  DEFAULT_OUTBOX_SETTINGS,
  enqueueMail,
  type MailQueue,
  type OutboxSettings,
  openPayload,
  retryDelay,
} from './outbox.ts';
import type { PayloadCipher } from './payload-cipher.ts';
import { DeliveryError, type MailLog, silentLog, type Transport } from './transport.ts';

export interface OutboxWorkerDeps {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly transport: Transport;
  readonly cipher: PayloadCipher;
  readonly clock: Clock;
  readonly settings?: Partial<OutboxSettings>;
}

/**
 * Delivers the outbox. Requests never talk to SMTP: they only insert rows, so an SMTP outage costs
 * them nothing. The worker claims due rows with a lease, sends them one by one, and records the
 * outcome only while the lease is still its own — every committed mail is sent, and sent once, as
 * long as the process is not killed between the SMTP server's "250 OK" and our UPDATE (then the mail
 * is sent again after the lease expires: at-least-once is the only honest promise over SMTP).
 */
export class OutboxWorker implements MailQueue {
  readonly settings: OutboxSettings;
  #log: MailLog = silentLog;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopping = false;
  #lastPrune = 0;
  readonly #followUps = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: OutboxWorkerDeps) {
    this.settings = { ...DEFAULT_OUTBOX_SETTINGS, ...deps.settings };
  }

  get log(): MailLog {
    return this.#log;
  }

  get started(): boolean {
    return this.#timer !== undefined;
  }

  async enqueue(db: Db, message: MailMessage): Promise<number> {
    const id = await enqueueMail(db, message, { cipher: this.deps.cipher, now: this.deps.clock.now() });
    if (db.isTransaction) this.#wakeAfterCommit();
    else this.wake();
    return id;
  }

  /**
   * The row becomes visible when the caller commits, which Kysely does not let us observe. Callers
   * should wake() after their commit; in case one does not (a hook deep inside a use case), the worker
   * also looks again a few times shortly after, so the mail never waits for the poll interval.
   */
  #wakeAfterCommit(): void {
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
  start(log: MailLog = this.#log): void {
    this.#log = log;
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

  /** Stops polling and waits for the message in flight; claimed but unsent rows are handed back. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const timer of this.#followUps) clearTimeout(timer);
    this.#followUps.clear();
    await this.#running;
    this.deps.transport.close();
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
        this.#log.error({ err: error }, 'mail outbox pass failed');
      }
    } while (this.#again && !this.#stopping);
  }

  async #pass(): Promise<void> {
    const { db, dialect, clock } = this.deps;
    const { leaseMs, batchSize } = this.settings;
    while (!this.#stopping) {
      const rows = await claimDueRows(db, dialect, clock.now(), leaseMs, batchSize);
      if (rows.length === 0) break;
      await this.#deliverBatch(rows);
    }
    await this.#pruneNow();
  }

  async #deliverBatch(rows: OutboxRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i++) {
      if (this.#stopping) return releaseRows(this.deps.db, rows.slice(i));
      const outcome = await this.#deliver(rows[i]!);
      if (outcome instanceof DeliveryError && outcome.connectionLevel) {
        // The server is unreachable: the rest of the batch would only wait for the same timeout.
        for (const row of rows.slice(i + 1)) await this.#retryOrGiveUp(row, outcome);
        return;
      }
    }
  }

  async #deliver(row: OutboxRow): Promise<DeliveryError | null> {
    const { db, clock } = this.deps;
    let message: MailMessage;
    try {
      message = openPayload(this.deps.cipher, row.payload);
    } catch (error) {
      const reason =
        error instanceof MailHeaderError ? error.message : 'payload cannot be opened (was APP_KEY changed?)';
      await markFailed(db, row, clock.now(), reason);
      this.#log.error({ outbox_id: row.id, kind: row.kind, error: reason }, 'mail given up');
      return null;
    }
    try {
      const result = await this.deps.transport.send(message);
      if (!(await markSent(db, row, clock.now()))) {
        this.#log.warn({ outbox_id: row.id }, 'mail sent after its lease expired; another worker may resend');
      }
      this.#log.info(
        { outbox_id: row.id, kind: row.kind, attempts: row.attempts, response: result.response },
        'mail sent',
      );
      return null;
    } catch (error) {
      const failure =
        error instanceof DeliveryError ? error : new DeliveryError(errorText(error), undefined, undefined);
      await this.#retryOrGiveUp(row, failure);
      return failure;
    }
  }

  async #retryOrGiveUp(row: OutboxRow, error: DeliveryError): Promise<void> {
    const now = this.deps.clock.now();
    const reason = [error.code, error.responseCode, error.message].filter(Boolean).join(' ').slice(0, 500);
    const details = { outbox_id: row.id, kind: row.kind, attempts: row.attempts, error: reason };
    if (error.permanent || now - row.created_at >= this.settings.maxAgeMs) {
      await markFailed(this.deps.db, row, now, reason);
      this.#log.error(details, 'mail given up');
      return;
    }
    const availableAt = now + retryDelay(row.attempts, this.settings);
    await scheduleRetry(this.deps.db, row, availableAt, reason);
    this.#log.warn({ ...details, retry_at: new Date(availableAt).toISOString() }, 'mail delivery failed');
  }

  async #pruneNow(): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.#lastPrune < HOUR) return;
    this.#lastPrune = now;
    await pruneFinishedRows(this.deps.db, now - this.settings.retentionMs);
  }
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 500);
}
