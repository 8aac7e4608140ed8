import type { Db } from '../db/schema.ts';
import { DAY, HOUR, MINUTE } from '../lib/clock.ts';
import type { OutboxSettings } from '../outbox/retry.ts';
import { checkMessage, type MailMessage } from './message.ts';
import { insertOutboxRow } from './outbox.repository.ts';
import type { PayloadCipher } from './payload-cipher.ts';

/**
 * The durable outbox. A use case writes its mail into `mail_outbox` inside its OWN transaction, so the
 * mail exists exactly when what caused it was committed: no mail for a rolled-back registration, and
 * no registration whose mail is lost because SMTP was down. The worker (outbox-worker.ts) delivers it.
 */
export interface MailQueue {
  /** Adds a message to the outbox through `db` (a connection or the caller's transaction). */
  enqueue(db: Db, message: MailMessage): Promise<number>;
  /**
   * Asks the worker to look now instead of at its next poll. Call it after the transaction that
   * enqueued has committed; before, the worker could not see the row yet.
   */
  wake(): void;
}

/** Writes one sealed message into the outbox; due at once unless `availableAt` says otherwise. */
export async function enqueueMail(
  db: Db,
  message: MailMessage,
  options: { cipher: PayloadCipher; now: number; availableAt?: number },
): Promise<number> {
  // Checked before it is stored: a message that could never be sent safely fails the use case now.
  const checked = checkMessage(message);
  return insertOutboxRow(db, {
    kind: checked.kind,
    recipient: checked.to.address,
    payload: options.cipher.seal(JSON.stringify(checked)),
    attempts: 0,
    available_at: options.availableAt ?? options.now,
    locked_until: null,
    sent_at: null,
    failed_at: null,
    last_error: null,
    created_at: options.now,
  });
}

export function openPayload(cipher: PayloadCipher, payload: string): MailMessage {
  const message = JSON.parse(cipher.open(payload)) as MailMessage;
  return checkMessage(message);
}

/** Like an MTA's: retried for five days (maxAgeMs), then given up. */
export const DEFAULT_OUTBOX_SETTINGS: OutboxSettings = {
  pollIntervalMs: 1000,
  batchSize: 20,
  leaseMs: 2 * MINUTE,
  retryBaseMs: 10_000,
  retryMaxMs: HOUR,
  maxAgeMs: 5 * DAY,
  retentionMs: 7 * DAY,
};

export type { OutboxSettings };
