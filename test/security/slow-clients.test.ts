import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { createTestApp, describeEachDialect, type TestApp } from '../helpers/app.ts';

interface SlowOutcome {
  /** The first line the server answered with ('' when it closed without answering). */
  readonly statusLine: string;
  /** Milliseconds from connecting until the server closed the socket. */
  readonly closedAfterMs: number;
}

/**
 * A client that sends `head` at once and then one byte of `drip` every 200 ms, never finishing its
 * request; resolves when the server closes the connection (or fails the test after `giveUpMs`).
 */
function slowClient(port: number, head: string, drip: string, giveUpMs: number): Promise<SlowOutcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(drip[sent++ % drip.length]!);
    }, 200);
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ statusLine: received.split('\r\n', 1)[0] ?? '', closedAfterMs: Date.now() - started });
    });
  });
}

const SLOW_BODY =
  'POST /login HTTP/1.1\r\nHost: gatehouse.test\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
  'Content-Length: 100000\r\n\r\nemail=';
const SLOW_HEADERS = 'GET /login HTTP/1.1\r\nHost: gatehouse.test\r\n';

/**
 * docs/security.md "Slow clients": a request whose headers and body have not all arrived within
 * REQUEST_TIMEOUT seconds (default 30) is answered 408 and its connection closed, so trickling
 * connections cannot pile up. Shortened to 1 s here; clients dripping a byte every 200 ms are never
 * idle, so only the whole-request deadline can end them.
 */
await describeEachDialect(
  'Slow clients (REQUEST_TIMEOUT=1)',
  (ctx) => {
    let port = 0;
    before(async () => {
      await ctx().app.listen({ host: '127.0.0.1', port: 0 });
      const address = ctx().app.server.address();
      port = typeof address === 'object' && address ? address.port : 0;
    });

    test('slow clients: slow bodies and slow headers get 408 and are closed by the deadline', async () => {
      const clients = [
        ...Array.from({ length: 4 }, () => slowClient(port, SLOW_BODY, 'abcdef', 8000)),
        ...Array.from({ length: 2 }, () => slowClient(port, SLOW_HEADERS, 'X-Slow: 1\r\n', 8000)),
      ];
      // Meanwhile a prompt client is served as usual.
      const prompt = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(prompt.status, 200);
      for (const outcome of await Promise.all(clients)) {
        assert.match(outcome.statusLine, /^HTTP\/1\.1 408 /);
        // The deadline (1 s) plus Node's check tick (1 s) and some slack for a busy machine.
        assert.ok(outcome.closedAfterMs >= 900, `closed after ${outcome.closedAfterMs} ms: too early`);
        assert.ok(outcome.closedAfterMs < 4000, `closed after ${outcome.closedAfterMs} ms: too late`);
      }
    });

    test('slow clients: a request that arrives in time is not cut off', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/login`);
      assert.equal(response.status, 200);
    });
  },
  { env: { REQUEST_TIMEOUT: '1' } },
);

/** Without REQUEST_TIMEOUT the deadline is 30 s (waiting it out would cost 30 s per dialect). */
let defaults: TestApp | undefined;
before(async () => {
  defaults = await createTestApp('sqlite');
});
after(async () => defaults?.close());

test('slow clients: the default deadline is 30 s for headers and the whole request', () => {
  const server = defaults!.app.server;
  assert.equal(server.requestTimeout, 30_000);
  assert.equal(server.headersTimeout, 30_000);
});

/** Sends `raw` on a new connection and returns everything the server wrote until it closed. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
  });
}

// Node answers these before any route: in the `{"message"}` shape of every other error, not Fastify's
// `{"error", "message", "statusCode"}` (an acceptance run met it with a 20 KB `state` on /oauth/authorize).
test('headers too large and requests that do not parse: 431 and 400 as JSON messages, then closed', async () => {
  await defaults!.app.listen({ host: '127.0.0.1', port: 0 });
  const address = defaults!.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const huge = await exchange(
    port,
    `GET /oauth/authorize?state=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`,
  );
  const broken = await exchange(port, 'GET /login HTTP/1.1\r\nHost: a\r\nBad Header Line\r\n\r\n');
  for (const [answer, status, message] of [
    [huge, 431, 'Request Header Fields Too Large.'],
    [broken, 400, 'Bad Request.'],
  ] as const) {
    const [head, body] = answer.split('\r\n\r\n');
    assert.match(head!, new RegExp(`^HTTP/1\\.1 ${status} `));
    assert.match(head!, /^Content-Type: application\/json/im);
    assert.deepEqual(JSON.parse(body!), { message });
  }
});
