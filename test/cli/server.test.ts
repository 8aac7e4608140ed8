import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { startFlags } from '../../bench/processes.ts';
import { TEST_APP_KEY } from '../helpers/app.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'gatehouse-server-'));
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * `npm start` without npm: the same command line as package.json's start script, its Node flags
 * included (they decide when the first garbage collections run, and so when a native-lifetime bug such
 * as db/sqlite-handles.ts describes would show).
 */
function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [...startFlags(), '--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { child, output: () => output, exit };
}

async function waitFor(check: () => RegExpMatchArray | null, exit: Promise<unknown>, ms = 20_000) {
  const deadline = Date.now() + ms;
  let exited = false;
  void exit.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    const match = check();
    if (match) return match;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('server did not start');
}

function post(port: number, path: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const payload = JSON.stringify(body);
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

describe('the server process', () => {
  test('migrates, serves, and on SIGTERM finishes the request in flight and exits 0', async () => {
    const server = start({
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: `sqlite:${join(work, 'db.sqlite')}`,
      STORAGE_PATH: join(work, 'storage'),
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: 'info',
    });
    try {
      const [, port] = await waitFor(
        () => server.output().match(/listening on http:\/\/127\.0\.0\.1:(\d+)/),
        server.exit,
      );
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });

      // An unknown e-mail costs an argon2id hash (the dummy) plus a verification: a request still
      // running when the signal arrives. It must be answered, not cut off.
      const inFlight = post(Number(port), '/api/tokens', {
        email: 'x@example.com',
        password: 'pw',
        device_name: 'd',
      });
      await new Promise((r) => setTimeout(r, 30));
      server.child.kill('SIGTERM');
      const answered = await inFlight;
      assert.equal(answered.status, 401);
      assert.equal(await server.exit, 0, server.output());
      assert.match(server.output(), /"msg":"shutting down"/);
      assert.doesNotMatch(server.output(), /Error|unhandled/i);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  test('invalid configuration: one line naming the variable, exit 1', async () => {
    const server = start({
      PORT: '0',
      TOKEN_EXPIRATION: 'forever',
      STORAGE_PATH: join(work, 'bad'),
      APP_KEY: TEST_APP_KEY,
    });
    const code = await server.exit;
    assert.equal(code, 1);
    assert.match(server.output(), /^Invalid configuration: TOKEN_EXPIRATION .*\n$/);
    assert.equal(server.output().split('\n').length, 2, server.output());
  });
});
