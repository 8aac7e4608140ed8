import type { Webhook } from 'standardwebhooks';
import { markFailed, markSent, releaseRows, scheduleRetry } from '../outbox/leased-rows.ts';
import { OutboxRunner, type OutboxRunnerDeps } from '../outbox/outbox-runner.ts';
import { type OutboxSettings, retryDelay } from '../outbox/retry.ts';
import { type DeliveryOutcome, deliver } from './webhook-delivery.ts';
import type { WebhookRow } from './webhook-outbox.table.ts';
import { endpointHash } from './webhook-outbox.ts';

export interface EndpointQueueDeps extends OutboxRunnerDeps {
  readonly signer: Webhook;
  readonly timeoutMs: number;
  readonly settings: OutboxSettings;
}

type Failure = Extract<DeliveryOutcome, { ok: false }>;

const TABLE = 'webhook_outbox';

/**
 * One endpoint's deliveries, on the shared outbox loop (outbox/outbox-runner.ts) scoped to its rows:
 * each endpoint has a loop of its own, so one that hangs until its timeout holds back no other. Its
 * rows go out in order; when it does not answer, the rest of the batch waits for its retry without an
 * attempt. The lease makes each row go out from one instance only.
 */
export class EndpointQueue extends OutboxRunner<WebhookRow> {
  /** Aborted by stop(): a graceful shutdown does not wait for an endpoint's timeout. */
  #stop = new AbortController();

  constructor(
    private readonly deps: EndpointQueueDeps,
    /** As configured in WEBHOOK_URLS (never stored: it may carry a secret). */
    private readonly url: string,
  ) {
    super(deps, TABLE, deps.settings, { column: 'endpoint_hash', value: endpointHash(url) });
  }

  /** Stops polling; a delivery in flight is cut short and its row handed back for the next instance. */
  override async stop(): Promise<void> {
    const stopping = super.stop();
    this.#stop.abort();
    await stopping;
    this.#stop = new AbortController();
  }

  protected async deliver(rows: WebhookRow[], stopping: () => boolean): Promise<void> {
    const { db, clock, timeoutMs } = this.deps;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      // Never start an attempt that could outlast the lease: another instance would take the row
      // and deliver it a second time.
      const leaseTooShort = clock.now() + timeoutMs + 5000 > (row.locked_until ?? 0);
      if (stopping() || leaseTooShort) return releaseRows(db, TABLE, rows.slice(i));
      const failure = await this.#attempt(row, stopping);
      if (failure?.unreachable) {
        // The endpoint does not answer: its other rows wait for their retry (not counted as attempts).
        for (const rest of rows.slice(i + 1)) await this.#retryOrGiveUp(rest, failure, rest.attempts - 1);
        return;
      }
    }
  }

  /** Delivers one row and records the outcome; the failure, if it failed. */
  async #attempt(row: WebhookRow, stopping: () => boolean): Promise<Failure | null> {
    const { db, clock } = this.deps;
    const outcome = await deliver(this.deps.signer, {
      url: this.url,
      messageId: row.message_id,
      body: row.payload,
      timeoutMs: this.deps.timeoutMs,
      now: new Date(clock.now()),
      signal: this.#stop.signal,
    });
    if (!outcome.ok && stopping()) {
      // Cut short by the shutdown: not the endpoint's failure. Handed back, due now (the receiver may
      // have taken it: it will see the same webhook-id again).
      await releaseRows(db, TABLE, [row]);
      return null;
    }
    if (!outcome.ok) {
      await this.#retryOrGiveUp(row, outcome, row.attempts);
      return outcome;
    }
    const details = { webhook_id: row.message_id, type: row.type, endpoint: row.endpoint };
    if (!(await markSent(db, TABLE, row, clock.now(), { last_status: outcome.status }))) {
      this.log.warn(
        details,
        'webhook delivered after its lease expired; another worker may deliver it again',
      );
    }
    this.log.info({ ...details, attempts: row.attempts, status: outcome.status }, 'webhook delivered');
    return null;
  }

  async #retryOrGiveUp(row: WebhookRow, failure: Failure, attempts: number): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const details = {
      webhook_id: row.message_id,
      type: row.type,
      endpoint: row.endpoint,
      error: failure.error,
    };
    const extra = { last_status: failure.status, attempts };
    if (now - row.created_at >= this.settings.maxAgeMs) {
      // Kept with its payload: an operator can retry it from the panel once the receiver is fixed.
      await markFailed(db, TABLE, row, now, failure.error, { ...extra, payload: row.payload });
      this.log.error(details, 'webhook given up');
      return;
    }
    const availableAt = now + retryDelay(attempts, this.settings);
    await scheduleRetry(db, TABLE, row, availableAt, failure.error, extra);
    this.log.warn(
      { ...details, attempts, retry_at: new Date(availableAt).toISOString() },
      'webhook delivery failed',
    );
  }
}
