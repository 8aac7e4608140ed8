import assert from 'node:assert/strict';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { type Measured, measureAnswered } from '../../bench/load.ts';

/**
 * One-second windows (autocannon ends a load at its next one-second sample, 2 connections) against a
 * server answering with `handler`; what was measured and what was logged.
 */
async function measureAgainst(handler: RequestListener): Promise<{ measured: Measured; lines: string[] }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const lines: string[] = [];
    const measured = await measureAnswered({ name: 'case', url }, { connections: 2, duration: 1 }, (line) =>
      lines.push(line),
    );
    return { measured, lines };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A server that holds every request until `holdMs` after the first one arrived. */
function measureSlowStarter(holdMs: number) {
  let first: number | undefined;
  return measureAgainst((_request, response) => {
    first ??= Date.now();
    setTimeout(() => response.end('ok'), Math.max(0, first + holdMs - Date.now()));
  });
}

// The CI's one-second smoke run once met a case whose first window brought no answer back (both cores
// busy): the run printed a ratio of Infinity and failed. A window without answers is measured again.
test('a window without an answer is measured again, twice as long', async () => {
  const { measured, lines } = await measureSlowStarter(1500);
  assert.deepEqual(lines, ['  case: no answer within 1 s, measuring again for 2 s']);
  assert.ok(measured.requests > 0 && measured.rps > 0, JSON.stringify(measured));
});

test('a window with answers is measured once', async () => {
  const { measured, lines } = await measureSlowStarter(0);
  assert.deepEqual(lines, []);
  assert.ok(measured.requests > 0);
});

// The CI's smoke run measured the token logins again at once after a window without answers: the
// server still held the first window's logins, the second window's joined them past HASH_QUEUE_MAX and
// were answered 503. The window measured again starts once what the last one left is answered.
test('a window measured again starts after the server has answered what the last one left', async () => {
  // One request at a time, 1.5 s each; a request arriving while three wait or run is refused (503).
  const queue: (() => void)[] = [];
  let busy = false;
  const next = () => {
    const work = queue.shift();
    busy = work !== undefined;
    if (work)
      setTimeout(() => {
        work();
        next();
      }, 1500);
  };
  const { measured, lines } = await measureAgainst((_request, response) => {
    if (queue.length + (busy ? 1 : 0) >= 3) {
      response.statusCode = 503;
      response.end();
      return;
    }
    queue.push(() => response.end('ok'));
    if (!busy) next();
  });
  assert.deepEqual(lines, ['  case: no answer within 1 s, measuring again for 2 s']);
  assert.equal(measured.unexpected, 0, JSON.stringify(measured.statuses));
  assert.ok(measured.requests > 0, JSON.stringify(measured));
});
