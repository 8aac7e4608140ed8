import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startFlags } from '../../bench/processes.ts';
import { TEST_APP_KEY } from '../helpers/app.ts';
import { ROOT, SERVER_ENTRY } from '../helpers/paths.ts';
import { freePort } from '../helpers/smtp-sink.ts';

const work = mkdtempSync(join(tmpdir(), 'gatehouse-server-'));
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * `npm start` without npm: the same command line as package.json's start script, its Node flags
 * included (they decide when the first garbage collections run, and so when a native-lifetime bug such
 * as db/sqlite-handles.ts describes would show).
 */
function start(
  env: Record<string, string>,
  options: { terminal?: boolean } = {},
): {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
} {
  const command = [process.execPath, ...startFlags(), SERVER_ENTRY];
  // `terminal`: under script(1), whose pseudo-terminal makes the server's stdout a TTY, as in a
  // developer's shell (its output then ends lines with \r\n).
  const [file, ...args] = options.terminal
    ? ['script', '-qfec', command.map((part) => `'${part}'`).join(' '), '/dev/null']
    : command;
  const child = spawn(file!, args, {
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
      // The next steps, on a pipe: where mail goes, but no mail's link (a pipe is where logs are collected).
      const steps = server.output().split('Next steps:\n')[1]?.split('\n\n')[0] ?? '';
      assert.match(steps, /^- Create the first admin: npx gatehouse make:admin$/m);
      assert.match(steps, /each mail is written to .*storage\/mail\/\.\n {2}Set MAIL_MAILER=smtp/);
      assert.doesNotMatch(steps, /printed here/);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  test("first run on a terminal: APP_URL is localhost:PORT, the next steps, and each mail's link (never in the JSON log)", {
    skip: existsSync('/usr/bin/script') ? false : 'script(1) (util-linux) is not installed',
  }, async () => {
    const port = await freePort();
    const server = start(
      {
        PORT: String(port),
        DATABASE_URL: `sqlite:${join(work, 'first-run.sqlite')}`,
        STORAGE_PATH: join(work, 'first-run-storage'),
        APP_KEY: TEST_APP_KEY,
      },
      { terminal: true },
    );
    try {
      await waitFor(() => server.output().match(/printed here as it goes out\.\r?\n/), server.exit);
      const output = () => server.output().replace(/\r\n/g, '\n');
      assert.match(
        output(),
        new RegExp(`listening on http://127\\.0\\.0\\.1:${port} \\(APP_URL http://localhost:${port}\\)`),
      );
      assert.ok(
        output().includes(
          `- Create the first admin: npx gatehouse make:admin\n  (then sign in to the panel at http://localhost:${port}/admin/login)\n- Open http://localhost:${port} to sign up or log in.\n`,
        ),
        output(),
      );
      assert.doesNotMatch(output(), /Passkeys are off/, 'localhost is a passkey domain');

      // Sign up in "the browser": the verification mail's link appears on the terminal, whole.
      const base = `http://127.0.0.1:${port}`;
      const cookies = new Map<string, string>();
      const visit = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(`${base}${path}`, {
          ...init,
          redirect: 'manual',
          headers: { ...init.headers, cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const at = pair!.indexOf('=');
          cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
        }
        return response;
      };
      const form = await (await visit('/register')).text();
      const token = /name="_token" value="([^"]+)"/.exec(form)?.[1] ?? '';
      const registered = await visit('/register', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          _token: token,
          name: 'Ada',
          email: 'ada@example.com',
          password: 'violet harbour lantern',
          password_confirmation: 'violet harbour lantern',
        }).toString(),
      });
      assert.equal(registered.status, 302);
      const [, link] = await waitFor(
        () =>
          output().match(
            /^Mail to ada@example\.com — Verify Email Address \(.*\.eml\)\n {2}Verify Email Address: (\S+)$/m,
          ),
        server.exit,
      );
      assert.match(
        link!,
        new RegExp(
          `^http://localhost:${port}/email/verify/1/[0-9a-f]{40}\\?expires=\\d+&signature=[0-9a-f]{64}$`,
        ),
      );
      const signature = new URL(link!).searchParams.get('signature')!;
      const jsonLines = output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      assert.ok(
        jsonLines.some((line) => line.includes('"kind":"verify-email"')),
        'the mail is logged',
      );
      assert.ok(!jsonLines.some((line) => line.includes(signature)), 'the link secret is not in the log');
      // Copied into the browser, the link verifies the address.
      const opened = await visit(new URL(link!).pathname + new URL(link!).search);
      assert.equal(opened.status, 302);
      assert.equal(opened.headers.get('location'), '/dashboard?verified=1');
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  });

  test('another APP_KEY than the signing keys were sealed with: one line saying so, exit 1', async () => {
    const env = {
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: `sqlite:${join(work, 'keys.sqlite')}`,
      STORAGE_PATH: join(work, 'keys'),
    };
    const first = start({ ...env, APP_KEY: TEST_APP_KEY });
    try {
      await waitFor(() => first.output().match(/listening on/), first.exit);
    } finally {
      first.child.kill('SIGTERM');
    }
    assert.equal(await first.exit, 0, first.output());

    const other = start({ ...env, APP_KEY: `base64:${Buffer.alloc(32, 9).toString('base64')}` });
    assert.equal(await other.exit, 1);
    assert.match(
      other.output(),
      /^Failed to start: the OpenID signing key \S+ in the database cannot be opened with this APP_KEY/m,
    );
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
