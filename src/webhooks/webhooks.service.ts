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
  findDelivery,
  listDeliveries,
  requeueDelivery,
} from './webhook-outbox.repository.ts';
import { endpointLabel, type WebhookSink, webhookSink } from './webhook-outbox.ts';
import { WebhookWorker } from './webhook-worker.ts';

export interface WebhooksDeps {
  readonly config: WebhooksConfig;
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly clock: Clock;
  readonly settings?: Partial<OutboxSettings>;
}

export type RetryResult = 'retried' | 'delivered' | 'in_flight' | 'not_found';

/**
 * Webhooks (docs/guides/webhooks.md): the sink that audited changes write their events into (null without
 * WEBHOOK_URLS: then nothing is written), the worker server.ts starts, and what the panel shows.
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
  const sink: WebhookSink | null = worker && webhookSink(config.urls, () => worker.wakeAfterCommit());

  return {
    sink,
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
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
