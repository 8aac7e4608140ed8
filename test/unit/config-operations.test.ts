import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

/** METRICS_TOKEN, WEBHOOK_URLS, WEBHOOK_SECRET and WEBHOOK_TIMEOUT (docs/guides/metrics.md). */
const storage = mkdtempSync(join(tmpdir(), 'gatehouse-config-ops-'));
after(() => rmSync(storage, { recursive: true, force: true }));
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const load = (env: Record<string, string>) =>
  loadConfig(
    { APP_KEY: `base64:${Buffer.alloc(32, 1).toString('base64')}`, STORAGE_PATH: storage, ...env },
    { readDotEnv: false, cwd: storage },
  );

/** The start stops with one line naming `variable`, and never echoing `secret`. */
function stops(env: Record<string, string>, variable: string, secret?: string) {
  assert.throws(
    () => load(env),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.variable === variable &&
      error.message.startsWith(`Invalid configuration: ${variable} `) &&
      !error.message.includes('\n') &&
      (secret === undefined || !error.message.includes(secret)),
    JSON.stringify(env),
  );
}

test('unset: no metrics token, no webhooks, a 10 s timeout', () => {
  const config = load({});
  assert.equal(config.metricsToken, null);
  assert.deepEqual(config.webhooks, { urls: [], secret: null, timeoutMs: 10_000 });
});

test('METRICS_TOKEN: 16 to 512 visible characters, or the start stops', () => {
  assert.equal(load({ METRICS_TOKEN: 'a-long-enough-token' }).metricsToken, 'a-long-enough-token');
  for (const bad of ['short', 'has a space in it ok', 'x'.repeat(513), 'tab\tinside-the-token-value'])
    stops({ METRICS_TOKEN: bad }, 'METRICS_TOKEN', bad);
});

test('WEBHOOK_URLS: comma-separated http(s) URLs, trimmed and deduplicated', () => {
  const config = load({
    WEBHOOK_URLS:
      ' https://hooks.example/in?token=x , http://10.0.0.5:8080/hook,https://hooks.example/in?token=x',
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_TIMEOUT: '3',
  });
  assert.deepEqual(config.webhooks.urls, ['https://hooks.example/in?token=x', 'http://10.0.0.5:8080/hook']);
  assert.equal(config.webhooks.secret, SECRET);
  assert.equal(config.webhooks.timeoutMs, 3000);
});

test('a bad WEBHOOK_URLS entry stops the start, named by position, never echoed', () => {
  for (const bad of [
    'ftp://files.example/x',
    'file:///etc/passwd',
    'hooks.example/in',
    'javascript:alert(1)',
    'mailto:ops@example.com',
  ])
    stops({ WEBHOOK_URLS: `https://ok.example/hook,${bad}`, WEBHOOK_SECRET: SECRET }, 'WEBHOOK_URLS', bad);
});

test('WEBHOOK_SECRET: required with URLs, whsec_ + base64 of 24 to 64 bytes', () => {
  stops({ WEBHOOK_URLS: 'https://ok.example/hook' }, 'WEBHOOK_SECRET');
  for (const bad of [
    Buffer.alloc(32, 5).toString('base64'),
    `whsec_${Buffer.alloc(16, 5).toString('base64')}`,
    `whsec_${Buffer.alloc(65, 5).toString('base64')}`,
    'whsec_not base64!',
  ]) {
    stops({ WEBHOOK_URLS: 'https://ok.example/hook', WEBHOOK_SECRET: bad }, 'WEBHOOK_SECRET', bad);
  }
});

test('WEBHOOK_TIMEOUT: whole seconds from 1 to 60', () => {
  for (const bad of ['0', '61', '1.5', 'ten']) stops({ WEBHOOK_TIMEOUT: bad }, 'WEBHOOK_TIMEOUT');
});
