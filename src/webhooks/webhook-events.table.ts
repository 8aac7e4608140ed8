import type { Insertable, Selectable } from 'kysely';
import type { LeasedColumns } from '../outbox/leased-rows.ts';

/**
 * One webhook event, written in the transaction of the change it reports, before anyone knows where it
 * goes: the process that writes it (a CLI command, say) may not know the service's endpoints. The
 * service's fan-out (event-fan-out.ts) turns it into one webhook_outbox row per configured endpoint and
 * marks it sent (`payload` wiped). `payload` is the exact JSON body every endpoint receives.
 */
export interface WebhookEventsTable extends LeasedColumns {
  /** The Standard Webhooks `webhook-id`: one per event, the same on every endpoint and every attempt. */
  message_id: string;
  /** The event type, e.g. two_factor.disabled. */
  type: string;
}

export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type NewWebhookEventRow = Insertable<WebhookEventsTable>;
