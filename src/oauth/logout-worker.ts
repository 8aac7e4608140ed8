import { DAY, MINUTE } from '../lib/clock.ts';
import { markFailed, markSent, releaseRows, scheduleRetry } from '../outbox/leased-rows.ts';
import { OutboxRunner, type OutboxRunnerDeps } from '../outbox/outbox-runner.ts';
import { type OutboxSettings, retryDelay } from '../outbox/retry.ts';
import type { KeyRing } from './key-ring.ts';
import type { LogoutNotice } from './logout-notices.ts';
import type { LogoutOutboxRow } from './logout-outbox.table.ts';
import { signLogoutToken } from './logout-token.ts';
import type { FindClient } from './oauth.service.ts';

export const DEFAULT_LOGOUT_SETTINGS: OutboxSettings = {
  pollIntervalMs: 1000,
  batchSize: 20,
  leaseMs: 2 * MINUTE,
  retryBaseMs: 5000,
  retryMaxMs: 30 * MINUTE,
  // A relying party unreachable for a day has let its own session expire long since.
  maxAgeMs: DAY,
  retentionMs: 7 * DAY,
};

export interface LogoutWorkerDeps extends OutboxRunnerDeps {
  readonly keyRing: KeyRing;
  readonly findClient: FindClient;
  readonly issuer: string;
  readonly timeoutMs?: number;
  readonly settings?: Partial<OutboxSettings>;
}

const TABLE = 'oauth_logout_outbox';

/**
 * Delivers back-channel logout notices (docs/guides/oidc-provider.md "Logout") on the shared outbox
 * loop (outbox/outbox-runner.ts): each row becomes a logout token signed now and POSTed as
 * `logout_token` to the client's `backchannel_logout_uri`. A 2xx is delivered; anything else (another
 * status, no answer, a redirect — never followed) is retried with backoff until the row is a day old.
 * A row survives a crash of the process: its lease expires and any instance takes it again.
 */
export class LogoutWorker extends OutboxRunner<LogoutOutboxRow> {
  #stop = new AbortController();

  constructor(private readonly deps: LogoutWorkerDeps) {
    super(deps, TABLE, { ...DEFAULT_LOGOUT_SETTINGS, ...deps.settings });
  }

  override async stop(): Promise<void> {
    const stopping = super.stop();
    this.#stop.abort();
    await stopping;
    this.#stop = new AbortController();
  }

  protected async deliver(rows: LogoutOutboxRow[], stopping: () => boolean): Promise<void> {
    for (let i = 0; i < rows.length; i++) {
      if (stopping()) return releaseRows(this.deps.db, TABLE, rows.slice(i));
      await this.#attempt(rows[i]!);
    }
  }

  async #attempt(row: LogoutOutboxRow): Promise<void> {
    const { db, clock } = this.deps;
    const client = await this.deps.findClient(row.client_id);
    const uri = client?.backchannelLogoutUri ?? null;
    if (uri === null) {
      await markFailed(db, TABLE, row, clock.now(), 'the client has no backchannel_logout_uri any more');
      return;
    }
    const error = await this.#post(uri, row);
    const now = clock.now();
    const details = { client_id: row.client_id, attempts: row.attempts };
    if (error === null) {
      await markSent(db, TABLE, row, now);
      this.log.info(details, 'back-channel logout delivered');
    } else if (now - row.created_at >= this.settings.maxAgeMs) {
      await markFailed(db, TABLE, row, now, error);
      this.log.error({ ...details, error }, 'back-channel logout given up');
    } else {
      await scheduleRetry(db, TABLE, row, now + retryDelay(row.attempts, this.settings), error);
      this.log.warn({ ...details, error }, 'back-channel logout failed');
    }
  }

  /** One POST; null when the client answered 2xx, else why not (no secrets, no bodies). */
  async #post(uri: string, row: LogoutOutboxRow): Promise<string | null> {
    const notice = JSON.parse(row.payload) as LogoutNotice;
    const token = await signLogoutToken(await this.deps.keyRing.current(), {
      issuer: this.deps.issuer,
      clientId: row.client_id,
      sub: notice.sub,
      sid: notice.sid,
      now: this.deps.clock.now(),
    });
    try {
      const response = await fetch(uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-store' },
        body: new URLSearchParams({ logout_token: token }).toString(),
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(this.deps.timeoutMs ?? 5000), this.#stop.signal]),
      });
      await response.body?.cancel();
      return response.status >= 200 && response.status < 300 ? null : `HTTP ${response.status}`;
    } catch (error) {
      return error instanceof Error ? error.name : 'request failed';
    }
  }
}
