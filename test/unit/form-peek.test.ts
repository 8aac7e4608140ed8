import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { peekBody } from '../../src/http/oauth/form-peek.ts';

/**
 * form-peek.ts: the body read ahead and put back; a stream that is gone, or goes while it waits,
 * settles the peek (a request must never wait forever).
 */

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

test('peekBody settles for a stream destroyed before it is called', async () => {
  const raw = new Readable({ read() {} });
  raw.push(Buffer.from('token=a'));
  // As on a request: the HTTP server has its own listener for the error.
  raw.on('error', () => {});
  raw.destroy(new Error('aborted'));
  await new Promise((resolve) => setImmediate(resolve));
  // The listeners would wait for events that were already emitted.
  assert.equal(await within(peekBody(raw, 20), 200), null);
});

test('peekBody settles for a stream destroyed without an error while it waits', async () => {
  const raw = new Readable({ read() {} });
  raw.push(Buffer.from('token=a'));
  const peek = peekBody(raw, 20);
  raw.destroy();
  // 'close', not 'error', is what it sees.
  assert.equal(await within(peek, 200), null);
});

test('peekBody puts the whole body back: the next reader reads it all, then the end', async () => {
  const raw = new Readable({ read() {} });
  raw.push(Buffer.from('token=a'));
  const peek = peekBody(raw, 12);
  setTimeout(() => {
    raw.push(Buffer.from('bcdef'));
    raw.push(null);
  }, 10);
  assert.equal(String(await peek), 'token=abcdef');
  const chunks: Buffer[] = [];
  for await (const chunk of raw) chunks.push(chunk as Buffer);
  assert.equal(Buffer.concat(chunks).toString(), 'token=abcdef');
});
