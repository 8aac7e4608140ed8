import { markFailed, markSent, releaseRows, scheduleRetry } from '../outbox/leased-rows.ts';
import { OutboxRunner, type OutboxRunnerDeps } from '../outbox/outbox-runner.ts';
import { type OutboxSettings, retryDelay } from '../outbox/retry.ts';
import type { WebhookEventRow } from './webhook-events.table.ts';
import { insertWebhookRows } from './webhook-outbox.repository.ts';
import { endpointHash, endpointLabel } from './webhook-outbox.ts';

export interface EventFanOutDeps extends OutboxRunnerDeps {
  /** WEBHOOK_URLS of this service (at least one). */
  readonly endpoints: readonly string[];
  /** Deliveries were written (committed): the endpoint queues look now. */
  readonly fannedOut: () => void;
}

const TABLE = 'webhook_events';

/** Another instance took the event meanwhile (our lease ran out): this instance's copy is undone. */
class LeaseLost extends Error {}

/**
 * Hands each webhook event to this service's endpoints (docs/guides/webhooks.md): one webhook_outbox
 * delivery per endpoint, with the event's id, body and time, written in ONE transaction with marking the
 * event taken. Events are written without knowing the endpoints (a CLI command may run with another
 * environment, or none); the running service decides where they go. The lease makes one instance take
 * each event; the unique (message_id, endpoint_hash) index refuses a second copy whatever happens.
 */
export class EventFanOut extends OutboxRunner<WebhookEventRow> {
  readonly #targets: readonly { hash: string; label: string }[];

  constructor(
    private readonly deps: EventFanOutDeps,
    settings: OutboxSettings,
  ) {
    super(deps, TABLE, settings);
    this.#targets = deps.endpoints.map((url) => ({ hash: endpointHash(url), label: endpointLabel(url) }));
  }

  protected async deliver(rows: WebhookEventRow[], stopping: () => boolean): Promise<void> {
    const { db, clock } = this.deps;
    let taken = 0;
    for (let i = 0; i < rows.length; i++) {
      if (stopping()) {
        await releaseRows(db, TABLE, rows.slice(i));
        break;
      }
      const event = rows[i]!;
      try {
        await db.transaction().execute(async (trx) => {
          await insertWebhookRows(
            trx,
            this.#targets.map((target) => ({
              message_id: event.message_id,
              type: event.type,
              endpoint_hash: target.hash,
              endpoint: target.label,
              payload: event.payload,
              attempts: 0,
              // The event's own time: its deliveries go out in the order the changes happened, and are
              // given up counting from it.
              available_at: event.created_at,
              locked_until: null,
              sent_at: null,
              failed_at: null,
              last_status: null,
              last_error: null,
              created_at: event.created_at,
            })),
          );
          if (!(await markSent(trx, TABLE, event, clock.now()))) throw new LeaseLost();
        });
        taken++;
      } catch (error) {
        if (error instanceof LeaseLost) {
          this.log.warn({ webhook_id: event.message_id }, 'webhook event taken by another instance');
        } else {
          await this.#retryLater(event, error);
        }
      }
    }
    if (taken > 0) this.deps.fannedOut();
  }

  /**
   * The transaction failed (a deadlock, the database gone, a row in the way): the event is tried again
   * with the deliveries' backoff, and given up (kept, with its error) as late as they are. The other
   * events of the batch go on.
   */
  async #retryLater(event: WebhookEventRow, error: unknown): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const code = (error as { code?: unknown } | null)?.code;
    const reason = `hand-out failed${typeof code === 'string' ? ` (${code})` : ''}`;
    this.log.error({ err: error, webhook_id: event.message_id }, 'webhook event not handed out');
    if (now - event.created_at >= this.settings.maxAgeMs) {
      await markFailed(db, TABLE, event, now, reason, { payload: event.payload });
    } else {
      await scheduleRetry(db, TABLE, event, now + retryDelay(event.attempts, this.settings), reason);
    }
  }
}
