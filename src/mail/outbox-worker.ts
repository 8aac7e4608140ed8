import type { Kysely } from 'kysely';
import type { Dialect } from '../db/connection.ts';
import type { Database, Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { markFailed, markSent, releaseRows, scheduleRetry } from '../outbox/leased-rows.ts';
import { OutboxRunner } from '../outbox/outbox-runner.ts';
import { type OutboxSettings, retryDelay } from '../outbox/retry.ts';
import { MailHeaderError, type MailMessage } from './message.ts';
import type { OutboxRow } from './outbox.table.ts';
import { DEFAULT_OUTBOX_SETTINGS, enqueueMail, type MailQueue, openPayload } from './outbox.ts';
import type { PayloadCipher } from './payload-cipher.ts';
import { DeliveryError, type Transport } from './transport.ts';

export interface OutboxWorkerDeps {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly transport: Transport;
  readonly cipher: PayloadCipher;
  readonly clock: Clock;
  readonly settings?: Partial<OutboxSettings>;
}

const TABLE = 'mail_outbox';

/**
 * Delivers the mail outbox. Requests never talk to SMTP: they only insert rows, so an SMTP outage costs
 * them nothing. The shared loop (outbox/outbox-runner.ts) claims due rows with a lease; this sends them
 * one by one and records the outcome only while the lease is still its own — every committed mail is
 * sent, and sent once, as long as the process is not killed between the SMTP server's "250 OK" and our
 * UPDATE (then the mail is sent again after the lease expires: at-least-once is the only honest promise
 * over SMTP).
 */
export class OutboxWorker extends OutboxRunner<OutboxRow> implements MailQueue {
  constructor(private readonly deps: OutboxWorkerDeps) {
    super(deps, TABLE, { ...DEFAULT_OUTBOX_SETTINGS, ...deps.settings });
  }

  async enqueue(db: Db, message: MailMessage): Promise<number> {
    const id = await enqueueMail(db, message, { cipher: this.deps.cipher, now: this.deps.clock.now() });
    if (db.isTransaction) this.wakeAfterCommit();
    else this.wake();
    return id;
  }

  /** Stops polling and waits for the message in flight; claimed but unsent rows are handed back. */
  override async stop(): Promise<void> {
    await super.stop();
    this.deps.transport.close();
  }

  protected async deliver(rows: OutboxRow[], stopping: () => boolean): Promise<void> {
    for (let i = 0; i < rows.length; i++) {
      if (stopping()) return releaseRows(this.deps.db, TABLE, rows.slice(i));
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
    const log = this.log;
    let message: MailMessage;
    try {
      message = openPayload(this.deps.cipher, row.payload);
    } catch (error) {
      const reason =
        error instanceof MailHeaderError ? error.message : 'payload cannot be opened (was APP_KEY changed?)';
      await markFailed(db, TABLE, row, clock.now(), reason);
      log.error({ outbox_id: row.id, kind: row.kind, error: reason }, 'mail given up');
      return null;
    }
    try {
      const result = await this.deps.transport.send(message);
      if (!(await markSent(db, TABLE, row, clock.now()))) {
        log.warn({ outbox_id: row.id }, 'mail sent after its lease expired; another worker may resend');
      }
      log.info(
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
    const log = this.log;
    const reason = [error.code, error.responseCode, error.message].filter(Boolean).join(' ').slice(0, 500);
    const details = { outbox_id: row.id, kind: row.kind, attempts: row.attempts, error: reason };
    if (error.permanent || now - row.created_at >= this.settings.maxAgeMs) {
      await markFailed(this.deps.db, TABLE, row, now, reason);
      log.error(details, 'mail given up');
      return;
    }
    const availableAt = now + retryDelay(row.attempts, this.settings);
    await scheduleRetry(this.deps.db, TABLE, row, availableAt, reason);
    log.warn({ ...details, retry_at: new Date(availableAt).toISOString() }, 'mail delivery failed');
  }
}

export function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 500);
}
