// Runs every *.test.ts under the given folders (default: test/) with node's test runner and tsx.
// Node 20's runner cannot expand globs itself, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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

// Ten minutes a file: the Chromium page suites walk every page in four languages at two widths with axe
// (about 2.5 minutes alone), and beside another heavy file on a 2-core machine they took over five.
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=600000', ...flags, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
