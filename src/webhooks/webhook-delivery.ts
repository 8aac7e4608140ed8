import type { Webhook } from 'standardwebhooks';

/** One POST of one event to one endpoint. */
export interface DeliveryAttempt {
  /** The endpoint as configured in WEBHOOK_URLS (credentials in it become Basic authentication). */
  readonly url: string;
  readonly messageId: string;
  /** The exact JSON body, as stored: the signature covers these bytes. */
  readonly body: string;
  readonly timeoutMs: number;
  readonly now: Date;
  /** Aborts the attempt (the worker is stopping). */
  readonly signal?: AbortSignal;
}

export type DeliveryOutcome =
  | { readonly ok: true; readonly status: number }
  | {
      readonly ok: false;
      /** The HTTP status, or null when nothing answered. */
      readonly status: number | null;
      readonly error: string;
      /** Nothing answered (refused, unreachable, timed out): the endpoint's other rows would fail alike. */
      readonly unreachable: boolean;
    };

const USER_AGENT = 'Gatehouse-Webhooks/1.0';

/**
 * Signs with the Standard Webhooks library (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`) and
 * POSTs. A 2xx is success; anything else is a failure to retry. Redirects are NOT followed: a 3xx is a
 * failure like any other, so an event can only ever reach a URL the operator listed. The timestamp
 * is the attempt's (receivers refuse old ones), the id is the event's (the same on every attempt).
 */
export async function deliver(signer: Webhook, attempt: DeliveryAttempt): Promise<DeliveryOutcome> {
  const target = new URL(attempt.url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': attempt.messageId,
    'webhook-timestamp': String(Math.floor(attempt.now.getTime() / 1000)),
    'webhook-signature': signer.sign(attempt.messageId, attempt.now, attempt.body),
  };
  if (target.username || target.password) {
    // fetch() refuses a URL with credentials; https://user:pass@host means Basic authentication.
    const user = decodeURIComponent(target.username);
    const password = decodeURIComponent(target.password);
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    target.username = '';
    target.password = '';
  }
  let response: Response;
  try {
    response = await fetch(target, {
      method: 'POST',
      headers,
      body: attempt.body,
      redirect: 'manual',
      signal: AbortSignal.any([
        AbortSignal.timeout(attempt.timeoutMs),
        ...(attempt.signal ? [attempt.signal] : []),
      ]),
    });
  } catch (error) {
    return { ok: false, status: null, error: failureText(error, attempt.timeoutMs), unreachable: true };
  }
  // The answer's body is of no use to us: not read, so a receiver cannot make us hold a large one.
  await response.body?.cancel().catch(() => {});
  const { status } = response;
  if (status >= 200 && status < 300) return { ok: true, status };
  const error =
    status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
  return { ok: false, status, error, unreachable: false };
}

/** Why nothing answered, without the URL (it may hold a secret) or anything the receiver chose. */
function failureText(error: unknown, timeoutMs: number): string {
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError') return `timed out after ${timeoutMs / 1000} s`;
  if (name === 'AbortError') return 'interrupted (shutting down)';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : null;
  return code ? `connection failed (${code})` : 'connection failed';
}
