import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** How one login attempt ended (gatehouse_logins_total's `result`). */
export type LoginResult = 'success' | 'failed' | 'throttled' | 'two_factor';

/**
 * What the service counts (docs/guides/webhooks.md). Labels carry route patterns, guard names and outcomes —
 * never an e-mail address, a token or an IP — so a series is never about a person and their number
 * stays bounded.
 */
export interface Metrics {
  /** METRICS_TOKEN is set: the hooks are installed and GET /metrics answers. */
  readonly enabled: boolean;
  /**
   * THE door of gatehouse_logins_total: called once per login attempt, where its outcome is decided
   * (auth/auth.service.ts for passwords, two-factor challenges and token logins; the per-IP budget
   * for refusals before any check). A new way to sign in (passkeys) calls it the same way.
   */
  login(guard: string, result: LoginResult): void;
  /**
   * One answer of the OAuth token endpoint (docs/reference/metrics.md): its grant type and `success`
   * or the RFC 6749 / 8628 error code; values outside the known sets count as `other`.
   */
  oauthToken(grantType: string, result: string): void;
  /** A bearer token was presented: did it authenticate? */
  tokenAuthentication(ok: boolean): void;
  /** One answered request: the route's pattern (never the URL), method, status, seconds. */
  request(route: string, method: string, status: number, seconds: number): void;
  /** The exposition, Prometheus text format. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** The gauges' readings, taken when Prometheus scrapes (a query each; nothing on the request path). */
export interface GaugeSources {
  mailOutboxPending(): Promise<number>;
  webhookOutboxPending(): Promise<number>;
  /** Password checks waiting for a hashing thread. */
  passwordHashQueue(): number;
}

/** gatehouse_oauth_tokens_total's label values: bounded, whatever a client sends. */
const OAUTH_GRANTS = new Set([
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
]);
const OAUTH_RESULTS = new Set([
  'success',
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'invalid_scope',
  'invalid_target',
  'unauthorized_client',
  'unsupported_grant_type',
  'authorization_pending',
  'slow_down',
  'access_denied',
  'expired_token',
]);

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const off: Metrics = {
  enabled: false,
  login() {},
  oauthToken() {},
  tokenAuthentication() {},
  request() {},
  scrape: () => Promise.reject(new Error('metrics are off (METRICS_TOKEN is not set)')),
};

/**
 * One registry per service instance (tests build many apps in one process; prom-client's global
 * registry would mix them). Without METRICS_TOKEN nothing is registered or counted.
 */
export function createMetrics(enabled: boolean, sources: GaugeSources): Metrics {
  if (!enabled) return off;
  const registers = [new Registry()];
  const [registry] = registers as [Registry];
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'gatehouse_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  const durations = new Histogram({
    name: 'gatehouse_http_request_duration_seconds',
    help: 'Time from the request to its answer, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: SECONDS_BUCKETS,
    registers,
  });
  const logins = new Counter({
    name: 'gatehouse_logins_total',
    help: 'Login attempts by guard and result (success, failed, throttled, two_factor), each counted once.',
    labelNames: ['guard', 'result'] as const,
    registers,
  });
  const tokenChecks = new Counter({
    name: 'gatehouse_token_authentications_total',
    help: 'Requests that presented a bearer token, by result (success, failed).',
    labelNames: ['result'] as const,
    registers,
  });
  const oauthTokens = new Counter({
    name: 'gatehouse_oauth_tokens_total',
    help: 'OAuth token endpoint answers by grant type and result (success or the error code).',
    labelNames: ['grant_type', 'result'] as const,
    registers,
  });
  gauge(registers, 'gatehouse_mail_outbox_pending', 'Mails waiting to be sent.', sources.mailOutboxPending);
  gauge(
    registers,
    'gatehouse_webhook_outbox_pending',
    'Webhook deliveries waiting (one per event and endpoint).',
    sources.webhookOutboxPending,
  );
  gauge(
    registers,
    'gatehouse_password_hash_queue',
    'Password checks waiting for a hashing thread.',
    async () => sources.passwordHashQueue(),
  );
  // Every series a dashboard expects is there from the start, at 0.
  for (const result of ['success', 'failed'] as const) tokenChecks.inc({ result }, 0);

  return {
    enabled: true,
    login: (guard, result) => logins.inc({ guard, result }),
    oauthToken: (grantType, result) =>
      oauthTokens.inc({
        grant_type: OAUTH_GRANTS.has(grantType) ? grantType : 'other',
        result: OAUTH_RESULTS.has(result) ? result : 'other',
      }),
    tokenAuthentication: (ok) => tokenChecks.inc({ result: ok ? 'success' : 'failed' }),
    request(route, method, status, seconds) {
      const labels = { route, method, status };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

function gauge(registers: Registry[], name: string, help: string, read: () => Promise<number>): void {
  new Gauge({
    name,
    help,
    registers,
    async collect() {
      // A reading that fails (the database is down) leaves the gauge out of date rather than failing
      // the whole scrape: /ready is where the database's health shows.
      try {
        this.set(await read());
      } catch {}
    },
  });
}
