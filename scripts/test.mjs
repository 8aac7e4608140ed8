// Builds dist/ (scripts/build.mjs), then runs every compiled test file under the given paths (default:
// test/) with node's test runner. Paths name the sources (test/http, test/unit/x.test.ts); the files
// run are their compiled twins in dist/. Node 20's runner cannot expand globs itself, so the files are
// listed here: a new *.test.ts anywhere under test/ is picked up without being named.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, outputOf, ROOT } from './build.mjs';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));

try {
  await build();
} catch (error) {
  process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

/** `test/http` or `test/http/x.test.ts` (or already `dist/…`) → the compiled path under dist/. */
function compiledPath(path) {
  const source = relative(ROOT, resolve(path));
  if (source.startsWith('dist/') || source === 'dist') return join(ROOT, source);
  return outputOf(source);
}

const files = [];
const walk = (path) => {
  if (statSync(path).isFile()) {
    if (path.endsWith('.test.js')) files.push(relative(ROOT, path));
    return;
  }
  for (const entry of readdirSync(path).sort()) walk(join(path, entry));
};
for (const root of roots.length ? roots : ['test']) {
  const path = compiledPath(root);
  if (!existsSync(path)) {
    process.stderr.write(`no such test file or folder: ${root}\n`);
    process.exit(1);
  }
  walk(path);
}
if (files.length === 0) {
  process.stderr.write(`no test files under ${roots.join(', ') || 'test'}\n`);
  process.exit(1);
}

// Files at once: one more than the cores (at most 4; TEST_CONCURRENCY overrides). The suites wait a lot
// (spawned servers, Chromium, databases, the hash threads' low priority): on the 2-core CI machine three
// at a time kept the CPU 98 % busy and the whole suite took 797 s, against 1,096 s two at a time (that
// run also took the page walks' screenshots, worth about 35 s), with every timing test passing.
// The run's id: its test processes share migrated template databases under it (test/helpers/
// migrated-databases.ts), removed with whatever else the run made once it is over.
const { newRunId, removeRunData } = await import(pathToFileURL(outputOf('test/helpers/test-run.ts')).href);
const runId = newRunId();
const concurrency = process.env.TEST_CONCURRENCY ?? String(Math.min(4, availableParallelism() + 1));
// Ten minutes a file: the Chromium page suites walk every page in four languages at two widths with axe
// (about 2.5 minutes alone), and beside other heavy files on a 2-core machine they took over five.
// The usual reporter (spec on a terminal, TAP otherwise) and, unless the caller chose reporters, a
// list of the failed tests at the very end (scripts/failures-reporter.mjs).
const reporters = flags.some((flag) => flag.startsWith('--test-reporter'))
  ? []
  : [
      `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
      '--test-reporter-destination=stdout',
      `--test-reporter=${pathToFileURL(join(ROOT, 'scripts/failures-reporter.mjs')).href}`,
      '--test-reporter-destination=stdout',
    ];
const result = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=600000', ...reporters, ...flags, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', GATEHOUSE_TEST_RUN: runId }, cwd: ROOT },
);
try {
  await removeRunData(runId);
} catch (error) {
  process.stderr.write(`could not remove the test run's databases: ${error}\n`);
}
process.exit(result.status ?? 1);
