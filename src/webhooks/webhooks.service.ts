import type { Kysely } from 'kysely';
import { fetchPage, type Page } from '../admin/paging.ts';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { WebhooksConfig } from '../config/operations.ts';
import type { Dialect } from '../db/connection.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { OutboxSettings } from '../outbox/retry.ts';
import {
  type DeliveryRow,
  dropUntakenEvents,
  findDelivery,
  listDeliveries,
  requeueDelivery,
} from './webhook-outbox.repository.ts';
import { endpointLabel, type WebhookSink, webhookSink } from './webhook-outbox.ts';
import { DEFAULT_WEBHOOK_SETTINGS, WebhookWorker } from './webhook-worker.ts';

export interface WebhooksDeps {
  readonly config: WebhooksConfig;
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly clock: Clock;
  readonly settings?: Partial<OutboxSettings>;
}

export type RetryResult = 'retried' | 'delivered' | 'in_flight' | 'not_found';

/**
 * Webhooks (docs/guides/webhooks.md): the sinks that audited changes write their events into, the worker
 * server.ts starts, and what the panel shows.
 *
 * `sink` is the server's: null without WEBHOOK_URLS (nobody would deliver what it wrote). `commandSink`
 * is the CLI's, and always writes: the running service delivers a command's events to its own
 * endpoints, whatever the command's environment says. So that events of a deployment without webhooks
 * do not pile up, a command that wrote one drops, as it closes, the events no service took within the
 * time a delivery is retried.
 */
export function createWebhooks(deps: WebhooksDeps) {
  const { config, db, clock } = deps;
  const worker =
    config.urls.length > 0 && config.secret !== null
      ? new WebhookWorker({
          db,
          dialect: deps.dialect,
          clock,
          endpoints: config.urls,
          secret: config.secret,
          timeoutMs: config.timeoutMs,
          settings: deps.settings,
        })
      : null;
  const sink: WebhookSink | null = worker && webhookSink(() => worker.wakeAfterCommit());
  let commandWrote = false;
  const commandSink = webhookSink(() => {
    commandWrote = true;
  });
  const maxAgeMs = { ...DEFAULT_WEBHOOK_SETTINGS, ...deps.settings }.maxAgeMs;

  return {
    sink,
    commandSink,
    worker,
    /** The configured endpoints as the panel may show them (no credentials, no query). */
    endpoints: config.urls.map(endpointLabel),

    /** Recent deliveries, newest first. */
    deliveries: (page: number, pageSize: number): Promise<Page<DeliveryRow>> =>
      fetchPage((limit, offset) => listDeliveries(db, limit, offset), page, pageSize),

    /** Makes one undelivered delivery due now (the panel's Retry), audited. */
    async retry(id: number, audit: AuditContext): Promise<RetryResult> {
      const result = await db.transaction().execute(async (trx): Promise<RetryResult> => {
        const row = await findDelivery(trx, id);
        if (row === undefined) return 'not_found';
        if (row.sent_at !== null) return 'delivered';
        if (!(await requeueDelivery(trx, id, audit.now))) return 'in_flight';
        await recordAudit(trx, 'admin.webhook.retried', audit, null, {
          delivery_id: id,
          webhook_id: row.message_id,
          type: row.type,
        });
        return 'retried';
      });
      if (result === 'retried') worker?.wake();
      return result;
    },

    async close() {
      await worker?.stop();
      if (commandWrote) await dropUntakenEvents(db, clock.now() - maxAgeMs);
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
