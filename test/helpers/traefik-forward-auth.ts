import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import type { ProxyProcess } from './proxies.ts';
import type { TraefikConfig, TraefikForwardAuth } from './traefik-config.ts';

/**
 * A model of Traefik's router and `forwardAuth` middleware, for a contract test where Traefik itself
 * is not available (it is not in Debian). It does what Traefik's documentation (Middlewares → HTTP →
 * ForwardAuth) and its source (pkg/middlewares/auth/forward.go) say, nothing more:
 *
 * - the router with the longest matching rule wins (Traefik's default priority), Host compared
 *   without the port;
 * - the middleware sends `GET <address>` (the address as written, query included) with the client's
 *   headers minus hop-by-hop ones, and sets X-Forwarded-For (the client's address), -Method, -Proto,
 *   -Host and -Uri from the request (overwriting a client's own unless `trustForwardHeader`);
 * - a non-2xx answer goes back to the client as it is: status, headers (Location included), body;
 * - on a 2xx, each `authResponseHeaders` header is removed from the request and set from the answer;
 * - the service gets the request with the client's Host and Traefik's own X-Forwarded-For/-Proto/-Host.
 */
export async function startTraefikModel(config: TraefikConfig, port: number): Promise<ProxyProcess> {
  const output: string[] = [];
  const server = createServer((request, response) => {
    handle(config, request)
      .then((answer) => {
        response.writeHead(answer.status, copied(answer.headers));
        response.end(answer.body);
      })
      .catch((error: unknown) => {
        output.push(String(error));
        response.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    output,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** RFC 7230 hop-by-hop headers (Go's oxy forward.HopHeaders), plus what the HTTP client sets itself. */
const NOT_COPIED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

async function handle(config: TraefikConfig, request: IncomingMessage): Promise<Answer> {
  const host = (request.headers.host ?? '').replace(/:\d+$/, '');
  const path = request.url ?? '/';
  const router = config.routers
    .filter((r) => r.host === host && (r.pathPrefix === null || path.startsWith(r.pathPrefix)))
    .sort((a, b) => b.priority - a.priority)[0];
  if (router === undefined) return { status: 404, headers: {}, body: Buffer.from('404 page not found\n') };
  const body = await read(request);
  const headers = copied(request.headers);
  for (const name of router.middlewares) {
    const middleware = config.middlewares[name];
    if (middleware === undefined) throw new Error(`router ${router.name}: no middleware ${name}`);
    const check = await send('GET', middleware.address, forwardRequestHeaders(middleware, request));
    if (check.status < 200 || check.status >= 300) return check;
    for (const header of middleware.authResponseHeaders) {
      const key = header.toLowerCase();
      delete headers[key];
      if (check.headers[key] !== undefined) headers[key] = check.headers[key];
    }
  }
  const service = config.services[router.service];
  if (service === undefined) throw new Error(`router ${router.name}: no service ${router.service}`);
  return send(
    request.method ?? 'GET',
    `${service}${path}`,
    {
      ...headers,
      host: request.headers.host,
      'x-forwarded-for': request.socket.remoteAddress,
      'x-forwarded-proto': 'http',
      'x-forwarded-host': request.headers.host,
      ...(body.length > 0 ? { 'content-length': String(body.length) } : {}),
    },
    body,
  );
}

/** forward.go writeHeader(): the client's headers, then the five X-Forwarded-* of the documentation. */
function forwardRequestHeaders(
  middleware: TraefikForwardAuth,
  request: IncomingMessage,
): IncomingHttpHeaders {
  const headers = copied(request.headers);
  const trusted = (name: string) => (middleware.trustForwardHeader ? request.headers[name] : undefined);
  const prior = trusted('x-forwarded-for');
  const client = request.socket.remoteAddress ?? '';
  headers['x-forwarded-for'] = prior ? `${prior}, ${client}` : client;
  headers['x-forwarded-method'] = trusted('x-forwarded-method') ?? request.method;
  headers['x-forwarded-proto'] = trusted('x-forwarded-proto') ?? 'http';
  headers['x-forwarded-host'] = trusted('x-forwarded-host') ?? request.headers.host;
  headers['x-forwarded-uri'] = trusted('x-forwarded-uri') ?? request.url;
  return headers;
}

function copied(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !NOT_COPIED.has(name)));
}

function read(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function send(method: string, url: string, headers: IncomingHttpHeaders, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers }, (incoming) => {
      read(incoming).then(
        (data) => resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, body: data }),
        reject,
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
