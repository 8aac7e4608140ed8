import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import type { Dialect } from '../db/connection.ts';
import type { Database } from '../db/schema.ts';
import { type Clock, DAY, MINUTE } from '../lib/clock.ts';
import { type Log, silentLog } from '../lib/log.ts';
import type { OutboxSettings } from '../outbox/retry.ts';
import { EndpointQueue } from './endpoint-queue.ts';
import { EventFanOut } from './event-fan-out.ts';
import { giveUpUnlisted } from './webhook-outbox.repository.ts';
import { endpointHash } from './webhook-outbox.ts';

/**
 * First retry 5–10 s after a failure, then doubling (with jitter) up to an hour between attempts;
 * given up three days after the event (the specification asks for retries over at least a day).
 */
export const DEFAULT_WEBHOOK_SETTINGS: OutboxSettings = {
  pollIntervalMs: 1000,
  batchSize: 50,
  leaseMs: 2 * MINUTE,
  retryBaseMs: 10_000,
  retryMaxMs: 60 * MINUTE,
  maxAgeMs: 3 * DAY,
  retentionMs: 7 * DAY,
};

export interface WebhookWorkerDeps {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly clock: Clock;
  /** WEBHOOK_URLS: the only targets. */
  readonly endpoints: readonly string[];
  readonly secret: string;
  readonly timeoutMs: number;
  readonly settings?: Partial<OutboxSettings>;
}

/**
 * Delivers webhook events: the fan-out (event-fan-out.ts) hands each event written by anyone to every
 * endpoint of this service, then one queue per endpoint (endpoint-queue.ts) delivers; all started and
 * stopped together. At-least-once, like mail: a process killed between the receiver's 2xx and our
 * UPDATE delivers that event again after the lease, with the same webhook-id.
 */
export class WebhookWorker {
  readonly settings: OutboxSettings;
  readonly #fanOut: EventFanOut;
  readonly #queues: EndpointQueue[];
  #log: Log = silentLog;

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.settings = { ...DEFAULT_WEBHOOK_SETTINGS, ...deps.settings };
    const signer = new Webhook(deps.secret);
    const queueDeps = { ...deps, signer, settings: this.settings };
    this.#queues = deps.endpoints.map((url) => new EndpointQueue(queueDeps, url));
    this.#fanOut = new EventFanOut({ ...deps, fannedOut: () => this.#wakeQueues() }, this.settings);
  }

  get started(): boolean {
    return this.#fanOut.started;
  }

  start(log: Log = silentLog): void {
    this.#log = log;
    this.#giveUpUnlisted().catch((error: unknown) =>
      log.error({ err: error }, 'webhook outbox sweep failed'),
    );
    this.#fanOut.start(log);
    for (const queue of this.#queues) queue.start(log);
  }

  wake(): void {
    this.#fanOut.wake();
    this.#wakeQueues();
  }

  /** After a transaction wrote an event: the fan-out looks a few times once it has had time to commit. */
  wakeAfterCommit(): void {
    this.#fanOut.wakeAfterCommit();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#fanOut.stop(), ...this.#queues.map((queue) => queue.stop())]);
  }

  /** Hands out and delivers everything due now (tests, CLI). */
  async drain(): Promise<void> {
    await this.#giveUpUnlisted();
    await this.#fanOut.drain();
    await Promise.all(this.#queues.map((queue) => queue.drain()));
  }

  #wakeQueues(): void {
    for (const queue of this.#queues) queue.wake();
  }

  /**
   * Rows for an endpoint that is no longer in WEBHOOK_URLS have no queue: they are given up (and can
   * be retried from the panel if it comes back), never sent anywhere else.
   */
  async #giveUpUnlisted(): Promise<void> {
    const { db, clock, endpoints } = this.deps;
    const count = await giveUpUnlisted(db, endpoints.map(endpointHash), clock.now());
    if (count > 0)
      this.#log.warn({ count }, 'webhook deliveries given up: endpoint no longer in WEBHOOK_URLS');
  }
}
