import type { Db } from '../db/schema.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { findUserById } from '../users/users.repository.ts';
import { eventData, type WebhookEvent, webhookEventFor } from './webhook-events.ts';
import { insertWebhookEvent } from './webhook-outbox.repository.ts';

/** What recordAudit (audit/audit.ts) hands over for an event it recorded. */
export interface AuditedChange {
  readonly event: string;
  readonly actorId: number | null;
  readonly subjectId: number | null;
  readonly details: Readonly<Record<string, unknown>>;
  readonly now: number;
}

/**
 * Where audited changes become webhook events (AuditContext.webhooks). recordAudit asks `reports()`
 * first, so that it can open a transaction for an audit row written outside one: the event row must
 * commit or roll back with the change it reports.
 */
export interface WebhookSink {
  reports(event: string): boolean;
  /** Writes the event through `db` (the caller's transaction). */
  record(db: Db, change: AuditedChange): Promise<void>;
}

/** Longest first path segment a label shows; a longer one may be a key (`/<secret>`). */
const LABEL_SEGMENT_MAX = 24;

/**
 * An endpoint as the panel, the audit log and the outbox rows show it: the origin and a short first
 * path segment, "…" for the rest of the path, and a fingerprint (8 hex digits of the SHA-256 of the
 * whole URL) that tells apart endpoints which look alike. Never the credentials, the query or the deeper
 * path: any of them may hold a secret (Slack's and Discord's webhook URLs carry theirs in the path).
 */
export function endpointLabel(url: string): string {
  const parsed = new URL(url);
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  const first = segments[0] ?? '';
  const path = first.length > LABEL_SEGMENT_MAX ? '/…' : `/${first}${segments.length > 1 ? '/…' : ''}`;
  return `${parsed.origin}${path} #${endpointHash(url).slice(0, 8)}`;
}

export function endpointHash(url: string): string {
  return sha256Hex(url);
}

/**
 * Webhook events as they are written: one webhook_events row per event, in the transaction of the
 * change, whatever endpoints the writing process knows of (a CLI command run without WEBHOOK_URLS
 * writes it all the same). The running service hands it to each endpoint it is configured with
 * (event-fan-out.ts). `written` is told of each row (the server wakes its fan-out after the commit).
 */
export function webhookSink(written: () => void): WebhookSink {
  return {
    reports: (event) => webhookEventFor(event) !== null,
    async record(db, change) {
      const type = webhookEventFor(change.event);
      if (type === null) return;
      await insertWebhookEvent(db, {
        // The Standard Webhooks id: the same for every endpoint and every attempt, so a receiver can
        // drop a repeated delivery by it.
        message_id: `msg_${randomToken(18)}`,
        type,
        payload: JSON.stringify(await eventBody(db, type, change)),
        attempts: 0,
        available_at: change.now,
        locked_until: null,
        sent_at: null,
        failed_at: null,
        last_error: null,
        created_at: change.now,
      });
      written();
    },
  };
}

/**
 * `{type, timestamp, data}` (docs/guides/webhooks.md). The user is read in the same transaction, so the event
 * shows the state the change left; a use case that deletes a user records before the row goes.
 */
async function eventBody(db: Db, type: WebhookEvent, change: AuditedChange) {
  const row = change.subjectId === null ? undefined : await findUserById(db, change.subjectId);
  const subject =
    change.subjectId === null
      ? null
      : { id: change.subjectId, email: row?.email ?? null, name: row?.name ?? null };
  return {
    type,
    timestamp: new Date(change.now).toISOString(),
    data: eventData(type, subject, change.actorId, change.details),
  };
}
