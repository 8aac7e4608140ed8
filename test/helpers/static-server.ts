import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StaticServer {
  /** http://localhost:<port>: the same host name as a Gatehouse on another port (one site). */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * A tiny web server for a front end in the browser tests: GET of a listed path answers that file,
 * any other GET the page at "/", anything else 405. Loopback only, a free port.
 */
export async function serveStatic(
  files: Record<string, { type: string; body: string | Buffer }>,
): Promise<StaticServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const file = files[path] ?? files['/']!;
    if (request.method !== 'GET') {
      response.writeHead(405).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' });
    response.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
