import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { requireServices } from '../helpers/databases.ts';
import { eventually } from '../helpers/process.ts';
import { freePort } from '../helpers/smtp-sink.ts';

/**
 * A real Prometheus (the Debian package) scrapes a listening Gatehouse with the bearer token of
 * METRICS_TOKEN, as an operator would configure it; its own HTTP API then shows the target up and the
 * gatehouse_* series stored.
 */
const PROMETHEUS = process.env['PROMETHEUS_PATH'] ?? '/usr/bin/prometheus';
const TOKEN = 'scrape-token-of-the-e2e-test-0123456789';

function prometheusSkip(): string | false {
  if (existsSync(PROMETHEUS)) return false;
  if (requireServices)
    throw new Error(`Prometheus is required (REQUIRE_SERVICES=1) but missing at ${PROMETHEUS}`);
  return `Prometheus not installed at ${PROMETHEUS} (apt-get install -y prometheus)`;
}

interface Query<T> {
  status: string;
  data: T;
}

describe('a real Prometheus scrapes GET /metrics', { skip: prometheusSkip() }, () => {
  let t: TestApp;
  let prometheus: ChildProcess | undefined;
  let api = '';
  let folder = '';
  const output: string[] = [];

  before(async () => {
    t = await createTestApp('sqlite', { env: { METRICS_TOKEN: TOKEN } });
    const target = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).host;
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-prometheus-'));
    const config = join(folder, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        'scrape_configs:',
        '  - job_name: gatehouse',
        '    metrics_path: /metrics',
        '    authorization:',
        '      type: Bearer',
        `      credentials: ${TOKEN}`,
        '    static_configs:',
        `      - targets: ['${target}']`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(folder, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    for (const stream of [prometheus.stdout!, prometheus.stderr!])
      stream.on('data', (chunk) => output.push(String(chunk)));
  });

  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await t?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  async function query<T>(path: string): Promise<T | undefined> {
    try {
      const response = await fetch(`${api}${path}`);
      if (!response.ok) return undefined;
      const body = (await response.json()) as Query<T>;
      return body.status === 'success' ? body.data : undefined;
    } catch {
      return undefined;
    }
  }

  test('the target is up, and the gatehouse series are stored', async () => {
    const user = await t.createUser();
    await t.issueToken(user.email, user.password);
    type Targets = { activeTargets: { health: string; lastError: string; scrapeUrl: string }[] };
    const targets = await eventually(
      async () => {
        const data = await query<Targets>('/api/v1/targets');
        const up = data?.activeTargets.find((target) => target.health === 'up');
        return up ? data : undefined;
      },
      30_000,
      `the target up (Prometheus said: ${output.join('').slice(-500)})`,
    );
    assert.equal(targets.activeTargets.length, 1);
    assert.match(targets.activeTargets[0]!.scrapeUrl, /\/metrics$/);

    type Vector = {
      resultType: string;
      result: { metric: Record<string, string>; value: [number, string] }[];
    };
    const logins = await eventually(
      async () => {
        const data = await query<Vector>(
          `/api/v1/query?query=${encodeURIComponent('gatehouse_logins_total{guard="api",result="success"}')}`,
        );
        return data && data.result.length > 0 ? data : undefined;
      },
      30_000,
      'gatehouse_logins_total in Prometheus',
    );
    assert.equal(logins.result[0]!.value[1], '1');
    assert.equal(logins.result[0]!.metric['job'], 'gatehouse');
    const up = await query<Vector>(`/api/v1/query?query=${encodeURIComponent('up{job="gatehouse"}')}`);
    assert.equal(up?.result[0]?.value[1], '1');
    const rss = await query<Vector>(`/api/v1/query?query=process_resident_memory_bytes`);
    assert.ok(Number(rss?.result[0]?.value[1]) > 0, 'the default process metrics are scraped too');
  });
});
