import type { Insertable, Selectable } from 'kysely';
import type { LeasedColumns } from '../outbox/leased-rows.ts';

/**
 * One event for one endpoint (a dead endpoint never holds back a live one). `payload` is the exact
 * JSON body, signed afresh at each attempt; it carries ids, e-mail and names, never a secret, and is
 * wiped once delivered or given up. The endpoint's URL is not stored (it may carry a secret in its
 * query): `endpoint_hash` finds it in WEBHOOK_URLS at delivery time, `endpoint` is what the panel shows.
 */
export interface WebhookOutboxTable extends LeasedColumns {
  /** The Standard Webhooks `webhook-id`: one per event, the same on every endpoint and every attempt. */
  message_id: string;
  /** The event type, e.g. user.registered. */
  type: string;
  /** SHA-256 (hex) of the endpoint URL as configured. */
  endpoint_hash: string;
  /** The endpoint without credentials or query string. */
  endpoint: string;
  /** HTTP status of the last attempt; null when none answered (refused connection, timeout). */
  last_status: number | null;
}

export type WebhookRow = Selectable<WebhookOutboxTable>;
export type NewWebhookRow = Insertable<WebhookOutboxTable>;
