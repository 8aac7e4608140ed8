import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { runCli } from '../../src/cli/index.ts';
import { TEST_APP_KEY } from '../helpers/app.ts';
import { freePort, startSmtpSink } from '../helpers/smtp-sink.ts';

const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-cli-mail-'));
after(() => rmSync(cwd, { recursive: true, force: true }));

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const out = new PassThrough().on('data', (c) => (stdout += c));
  const err = new PassThrough().on('data', (c) => (stderr += c));
  const code = await runCli(['mail:test', ...args], {
    stdout: out,
    stderr: err,
    stdin: new PassThrough(),
    env: { APP_KEY: TEST_APP_KEY, APP_URL: 'http://gatehouse.test', APP_NAME: 'Gatehouse', ...env },
    cwd,
  });
  return { code, stdout, stderr };
}

test('mail:test sends through SMTP directly and prints the server answer', async () => {
  const sink = await startSmtpSink();
  try {
    const result = await run(['ops@example.com'], sink.env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Accepted: ops@example\.com/);
    assert.match(result.stdout, /Response: 250 /);
    const mail = await sink.waitForMail();
    assert.equal(mail.subject, 'Test message from Gatehouse');
    assert.ok(mail.text.length > 0 && mail.html.length > 0);
  } finally {
    await sink.close();
  }
});

test('mail:test reports an unreachable server in one line with a non-zero exit', async () => {
  const port = await freePort();
  const result = await run(['ops@example.com'], {
    MAIL_MAILER: 'smtp',
    MAIL_HOST: '127.0.0.1',
    MAIL_PORT: String(port),
  });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, '');
  assert.match(
    result.stderr,
    new RegExp(`^Sending via smtp://127\\.0\\.0\\.1:${port} failed: E[A-Z]+ .+\\n$`),
  );
  assert.equal(result.stderr.split('\n').length, 2, 'exactly one line');
});

test('mail:test refuses a malformed address or none, and works with the log mailer', async () => {
  for (const args of [
    [],
    ['not-an-address'],
    ['a@example.com\r\nBcc: b@example.com'],
    ['a@example.com', 'b@example.com'],
  ]) {
    const result = await run(args);
    assert.equal(result.code, 1, JSON.stringify(args));
    assert.equal(result.stderr.split('\n').length, 2);
  }
  const logged = await run(['ops@example.com'], { STORAGE_PATH: join(cwd, 'storage') });
  assert.equal(logged.code, 0, logged.stderr);
  assert.match(logged.stdout, /via the log mailer/);
  assert.equal(readdirSync(join(cwd, 'storage', 'mail')).length, 1);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /gatehouse mail:test <address>/);
});
