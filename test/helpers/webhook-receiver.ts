import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { eventually } from './process.ts';
import { freePort } from './smtp-sink.ts';

/** A fresh Standard Webhooks secret, as WEBHOOK_SECRET takes it. */
export function webhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** One POST the receiver accepted, its signature verified with the standardwebhooks library. */
export interface ReceivedEvent {
  readonly id: string;
  readonly timestamp: number;
  readonly type: string;
  readonly eventTimestamp: string;
  readonly data: Record<string, unknown>;
  readonly headers: IncomingMessage['headers'];
}

/**
 * What the receiver answers each request with: a status (2xx accepted), `hang` (never answers),
 * `redirect` (302 to `location`).
 */
export type ReceiverMode =
  | { readonly status: number }
  | { readonly hang: true }
  | { readonly redirect: string };

/** A local webhook endpoint (Standard Webhooks receiver) that records what it verified. */
export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  /** Every accepted (2xx-answered) event, in arrival order. */
  readonly events: ReceivedEvent[];
  /** Every request, answered or not, with a verdict on its signature. */
  readonly requests: { id: string; verified: boolean; path: string }[];
  mode: ReceiverMode;
  /** Forgets what it received (a receiver shared by several suites). */
  forget(): void;
  /** Stops listening (connections are then refused) until start() again, on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Waits for an accepted event matching `match`. */
  waitFor(
    match: (event: ReceivedEvent) => boolean,
    timeoutMs?: number,
    what?: string,
  ): Promise<ReceivedEvent>;
  close(): Promise<void>;
}

interface Payload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

function verified(verifier: Webhook, body: string, headers: Record<string, string>): Payload | null {
  try {
    return verifier.verify(body, headers) as Payload;
  } catch {
    return null;
  }
}

export async function startWebhookReceiver(
  secret: string,
  options: { port?: number; path?: string } = {},
): Promise<WebhookReceiver> {
  const port = options.port ?? (await freePort());
  const path = options.path ?? '/hooks';
  const verifier = new Webhook(secret);
  const hanging = new Set<ServerResponse>();
  let server: Server | null = null;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    const payload = verified(verifier, body, headers);
    const id = headers['webhook-id'] ?? '';
    receiver.requests.push({ id, verified: payload !== null, path: request.url ?? '' });
    const mode = receiver.mode;
    if ('hang' in mode) {
      hanging.add(response);
      return;
    }
    if ('redirect' in mode) {
      response.writeHead(302, { location: mode.redirect }).end();
      return;
    }
    if (payload === null) {
      response.writeHead(401).end('bad signature');
      return;
    }
    if (mode.status >= 200 && mode.status < 300) {
      receiver.events.push({
        id,
        timestamp: Number(headers['webhook-timestamp']),
        type: payload.type,
        eventTimestamp: payload.timestamp,
        data: payload.data,
        headers: request.headers,
      });
    }
    response.writeHead(mode.status).end();
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const created = createServer((request, response) => {
        handle(request, response).catch(() => response.writeHead(500).end());
      });
      created.once('error', reject);
      created.listen(port, '127.0.0.1', () => {
        server = created;
        resolve();
      });
    });
  const shut = async () => {
    const current = server;
    server = null;
    if (current === null) return;
    for (const response of hanging) response.socket?.destroy();
    hanging.clear();
    current.closeAllConnections();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    events: [],
    requests: [],
    mode: { status: 204 },
    forget() {
      receiver.events.length = 0;
      receiver.requests.length = 0;
    },
    stop: shut,
    start: listen,
    waitFor: (match, timeoutMs = 10_000, what = 'a webhook event') =>
      eventually(() => receiver.events.find(match), timeoutMs, what),
    close: shut,
  };
  await listen();
  return receiver;
}
