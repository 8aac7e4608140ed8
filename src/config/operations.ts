import { ConfigError, integer, type Reader } from './parsers.ts';

/** Metrics and webhooks (docs/guides/metrics.md). */
export interface OperationsConfig {
  /** METRICS_TOKEN: GET /metrics answers only with `Authorization: Bearer <it>`; null = 404. */
  readonly metricsToken: string | null;
  readonly webhooks: WebhooksConfig;
}

export interface WebhooksConfig {
  /** WEBHOOK_URLS: the only targets events are POSTed to; empty = no webhooks. */
  readonly urls: readonly string[];
  /** WEBHOOK_SECRET (`whsec_<base64>`): the Standard Webhooks signing key; null without URLs. */
  readonly secret: string | null;
  /** WEBHOOK_TIMEOUT (seconds): how long one endpoint gets to answer one delivery. */
  readonly timeoutMs: number;
}

export function operationsConfig(read: Reader): OperationsConfig {
  const urls = webhookUrls(read('WEBHOOK_URLS'));
  return {
    metricsToken: metricsToken(read('METRICS_TOKEN')),
    webhooks: {
      urls,
      secret: webhookSecret(read('WEBHOOK_SECRET'), urls.length > 0),
      timeoutMs: integer(read, 'WEBHOOK_TIMEOUT', 10, 1, 60) * 1000,
    },
  };
}

/**
 * A guessable scrape token would hand anyone the service's traffic figures: at least 16 characters,
 * no spaces (it travels in a header). The value itself is never echoed.
 */
function metricsToken(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!/^[\x21-\x7e]{16,512}$/.test(raw)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 16 to 512 visible ASCII characters without spaces');
  }
  return raw;
}

/**
 * Comma-separated absolute http:// or https:// URLs, nothing else: a webhook can only go where the
 * operator wrote it (no file:, no other scheme the HTTP client might follow). An entry is named by its
 * position, never echoed: a receiver's URL often carries a secret in its query string.
 */
function webhookUrls(raw: string | undefined): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const urls = entries.map((entry, index) => {
    let parsed: URL | null = null;
    try {
      parsed = new URL(entry);
    } catch {}
    if (
      parsed === null ||
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
      !parsed.hostname
    ) {
      throw new ConfigError(
        'WEBHOOK_URLS',
        `must be comma-separated absolute http:// or https:// URLs (entry ${index + 1} is not)`,
      );
    }
    return parsed.href;
  });
  return [...new Set(urls)];
}

/**
 * `whsec_` + base64 of 24 to 64 random bytes, as the Standard Webhooks specification recommends (and
 * its libraries and Svix generate). Required as soon as there is an endpoint: unsigned events could be
 * forged by anyone who can reach the receiver.
 */
function webhookSecret(raw: string | undefined, required: boolean): string | null {
  const format = 'whsec_ followed by the base64 of 24 to 64 random bytes';
  if (raw === undefined) {
    if (required) throw new ConfigError('WEBHOOK_SECRET', `is required when WEBHOOK_URLS is set (${format})`);
    return null;
  }
  const encoded = raw.startsWith('whsec_') ? raw.slice('whsec_'.length) : null;
  const bytes =
    encoded !== null && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0
      ? Buffer.from(encoded, 'base64').length
      : 0;
  if (bytes < 24 || bytes > 64) throw new ConfigError('WEBHOOK_SECRET', `must be ${format}`);
  return raw;
}
