import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/paths.ts';

/**
 * docs/reference/http-api.md: /openapi.json has no lint errors. `redocly lint` (@redocly/cli, with the
 * repository's redocly.yaml) runs over the very document the app serves: 0 errors and 0 warnings. The
 * document does not depend on the dialect, so SQLite is enough.
 */
const REDOCLY = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
}

/**
 * `redocly lint` of `file` in `folder`, beside copies of the repository's redocly.yaml and
 * .redocly.lint-ignore.yaml (whose entries name the file as it is there: openapi.json).
 */
function lint(
  folder: string,
  file: string,
): { totals: { errors: number; warnings: number; ignored: number }; problems: Problem[] } {
  for (const name of ['redocly.yaml', '.redocly.lint-ignore.yaml'])
    copyFileSync(join(ROOT, name), join(folder, name));
  const run = spawnSync(
    process.execPath,
    [REDOCLY, 'lint', file, '--config', 'redocly.yaml', '--format=json'],
    {
      cwd: folder,
      encoding: 'utf8',
      timeout: 120_000,
      // No telemetry or update check: the tests make no calls outside the machine.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  assert.ok(run.stdout.trim().startsWith('{'), `redocly printed no report: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe('redocly lint of /openapi.json', () => {
  let t: TestApp;
  let folder: string;
  before(async () => {
    t = await createTestApp('sqlite');
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-openapi-'));
  });
  after(async () => {
    await t?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('the document the app serves: 0 errors, 0 warnings', async () => {
    const file = join(folder, 'openapi.json');
    writeFileSync(file, (await t.app.inject({ url: '/openapi.json' })).body);
    const report = lint(folder, 'openapi.json');
    const problems = report.problems.map(
      (p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
    // Only the entries of .redocly.lint-ignore.yaml, each justified there; a stale one would be noise.
    assert.equal(report.totals.ignored, 5);
  });

  test('the linter catches what the rules are for: a required name without a property, an array without items', () => {
    const file = join(folder, 'broken.json');
    const schema = {
      type: 'object',
      properties: { tags: { type: ['array', 'null'] }, ok: { type: 'array', items: { type: 'string' } } },
      required: ['ok', 'missing'],
    };
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1', license: { name: 'MIT', identifier: 'MIT' } },
        servers: [{ url: 'http://example.test' }],
        security: [],
        paths: {
          '/x': {
            post: {
              operationId: 'x',
              summary: 'x',
              description: 'x',
              requestBody: { content: { 'application/json': { schema } } },
              responses: { '204': { description: 'ok' }, '400': { description: 'bad' } },
            },
          },
        },
      }),
    );
    const rules = lint(folder, 'broken.json').problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
    assert.deepEqual(rules.sort(), [
      'no-required-schema-properties-undefined #/paths/~1x/post/requestBody/content/application~1json/schema/required/1',
      'rule/arrays-say-their-items #/paths/~1x/post/requestBody/content/application~1json/schema/properties/tags',
    ]);
  });
});
