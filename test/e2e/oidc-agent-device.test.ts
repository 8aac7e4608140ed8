import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { approveDevice, type RegisteredClient, registerClient, signedInBrowser } from '../helpers/oidc.ts';
import { eventually } from '../helpers/process.ts';
import { binarySkip } from '../helpers/proxies.ts';
import { freePort } from '../helpers/smtp-sink.ts';

/**
 * A real device client (docs/guides/oidc-provider.md "Device flow"): Debian's oidc-agent. Its oidc-gen
 * runs the device flow against Gatehouse listening on a port, without a prompt (the encryption
 * password from the environment, defaults confirmed, no browser opened); a signed-in person approves
 * the code it prints at /device; then oidc-token hands out an access token that Gatehouse's API
 * accepts, and, forced, a new one from the refresh token (rotated, twice).
 *
 * The client is confidential: oidc-agent (4.2.6 here; 5.3 still does) sends every request with HTTP
 * Basic, for a client without a secret with an empty password, which oidc-provider refuses
 * (invalid_request, "client_secret must be provided in the Authorization header").
 */
const BIN = process.env['OIDC_AGENT_BIN'] ?? '/usr/bin';
const INSTALL = 'apt-get install -y oidc-agent-cli';
const skip =
  binarySkip('oidc-agent', join(BIN, 'oidc-agent'), INSTALL) ||
  binarySkip('oidc-gen', join(BIN, 'oidc-gen'), INSTALL) ||
  binarySkip('oidc-token', join(BIN, 'oidc-token'), INSTALL);

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const ACCOUNT = 'gatehouse';

interface Run {
  readonly child: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  readonly exited: Promise<number | null>;
}

/** One of oidc-agent's programs, its output kept, killed if it outlives `timeoutMs`. */
function run(program: string, args: string[], env: Record<string, string>, timeoutMs = 60_000): Run {
  const child = spawn(join(BIN, program), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, stdout, stderr, exited };
}

describe('oidc-agent as a device client', { skip }, () => {
  let t: TestApp;
  let base: string;
  let rp: RegisteredClient;
  let home: string;
  let agent: Run | undefined;
  let env: Record<string, string>;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await createTestApp('sqlite', { env: { APP_URL: base } });
    await t.app.listen({ host: '127.0.0.1', port });
    rp = await registerClient(t, {
      public: false,
      redirectUris: [],
      grantTypes: [DEVICE, 'refresh_token'],
      scope: 'openid profile offline_access posts:read',
    });
    // Its own home (account files) and socket: nothing of the machine's oidc-agent is read or touched.
    home = mkdtempSync(join(tmpdir(), 'gatehouse-oidc-agent-'));
    const socket = join(home, 'agent.sock');
    env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      OIDC_SOCK: socket,
      OIDC_ENCRYPTION_PW: 'a test encryption password',
    };
    // In the foreground (--console), so that it is our child and ends with the suite.
    agent = run('oidc-agent', ['--console', `--socket-path=${socket}`], env, 10 * 60_000);
    await eventually(() => (existsSync(socket) ? true : undefined), 10_000, 'the agent socket');
  });

  after(async () => {
    agent?.child.kill('SIGTERM');
    await agent?.exited;
    await t?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('oidc-gen polls, a person approves at /device, oidc-token gives tokens the API accepts', async () => {
    const user = await t.createUser();
    const gen = run(
      'oidc-gen',
      [
        '--flow=device',
        `--iss=${base}`,
        `--client-id=${rp.clientId}`,
        `--client-secret=${rp.secret}`,
        '--scope=openid profile offline_access',
        '--pw-env',
        '--confirm-default',
        '--no-url-call',
        '--prompt=none',
        ACCOUNT,
      ],
      env,
    );
    const output = () => `${gen.stdout.join('')}${gen.stderr.join('')}`;
    const userCode = await eventually(
      () => /enter the code: ([A-Z]{4}-[A-Z]{4})/.exec(output())?.[1],
      30_000,
      'the user code oidc-gen prints',
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${output().slice(0, 2_000)}`);
    });
    assert.match(output(), new RegExp(`${base}/device`), 'it shows where to go');

    const browser = await signedInBrowser(t, user.email, user.password);
    const done = await approveDevice(browser, userCode, 'allow', base);
    assert.match(done.body, /Device connected/);
    assert.equal(await gen.exited, 0, output().slice(0, 2_000));
    assert.match(gen.stdout.join(''), /Everything setup correctly/);

    const tokens: string[] = [];
    for (const args of [[ACCOUNT], ['--force-new', ACCOUNT], ['--force-new', ACCOUNT]]) {
      const token = run('oidc-token', args, env, 30_000);
      assert.equal(await token.exited, 0, token.stderr.join(''));
      tokens.push(token.stdout.join('').trim());
    }
    assert.equal(new Set(tokens).size, 3, 'each forced token is new: the refresh token, rotated, worked');
    for (const token of tokens) {
      const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
      assert.equal(header.typ, 'at+jwt');
      const me = await t.app.inject({ url: '/api/user', headers: { authorization: `Bearer ${token}` } });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().id, user.id);
    }
  });
});
