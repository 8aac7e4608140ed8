/** How an outbox worker polls, leases and retries (mail/outbox.ts and webhooks/ pick the values). */
export interface OutboxSettings {
  /** How often the worker looks for rows due from other instances or retries. */
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  /** How long a claim is ours; far longer than one delivery attempt. */
  readonly leaseMs: number;
  /** First retry delay; doubles per attempt up to retryMaxMs, with jitter. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** A row still undeliverable this long after it was written is given up. */
  readonly maxAgeMs: number;
  /** Sent and failed rows are deleted after this long. */
  readonly retentionMs: number;
}

/**
 * Exponential backoff with "equal jitter": half the delay fixed, half random, so the rows queued
 * during one outage do not all hit the recovering server in the same second.
 */
export function retryDelay(attempts: number, settings: OutboxSettings, random = Math.random): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  const delay = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** exponent);
  return Math.round(delay / 2 + random() * (delay / 2));
}
