// Runs every *.test.ts under the given folders (default: test/) with node's test runner and tsx.
// Node 20's runner cannot expand globs itself, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = [];
const walk = (path) => {
  if (statSync(path).isFile()) {
    if (path.endsWith('.test.ts')) files.push(path);
    return;
  }
  for (const entry of readdirSync(path).sort()) {
    if (entry === 'node_modules' || entry === 'artifacts') continue;
    walk(join(path, entry));
  }
};
for (const root of roots.length ? roots : ['test']) walk(root);

// Files at once: one more than the cores (at most 4; TEST_CONCURRENCY overrides). The suites wait a lot
// (spawned servers, Chromium, databases, the hash threads' low priority): on the 2-core CI machine three
// at a time kept the CPU 98 % busy and the whole suite took 797 s, against 1,096 s two at a time (that
// run also took the page walks' screenshots, worth about 35 s), with every timing test passing.
const concurrency = process.env.TEST_CONCURRENCY ?? String(Math.min(4, availableParallelism() + 1));
// Ten minutes a file: the Chromium page suites walk every page in four languages at two widths with axe
// (about 2.5 minutes alone), and beside other heavy files on a 2-core machine they took over five.
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=600000',
    ...flags,
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
