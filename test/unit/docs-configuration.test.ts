import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/paths.ts';

/**
 * docs/configuration.md lists exactly the environment variables the configuration code reads: a
 * variable added to src/config without a row (or a row left behind after a variable was removed) fails
 * here, naming it.
 */

const root = ROOT;

/** src/config.ts and every file under src/config/. */
function configSources(): string[] {
  const files = [join(root, 'src/config.ts')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(path);
    }
  };
  walk(join(root, 'src/config'));
  return files;
}

/**
 * The ways the configuration code reads a variable: `read('X')`, a parser given the reader and a name
 * (`integer(read, 'X', …)`), and a look at the raw environment (`merged['X']`, `env['X']`).
 */
const READS = [
  /\bread\(\s*'([A-Z][A-Z0-9_]*)'\s*\)/g,
  /\(\s*read\s*,\s*'([A-Z][A-Z0-9_]*)'/g,
  /\b(?:merged|env)\[\s*'([A-Z][A-Z0-9_]*)'\s*\]/g,
];

/**
 * A login provider's own variables (config/login-providers.ts): `perProvider('CLIENT_ID')` reads
 * `<NAME>_CLIENT_ID` for each name in LOGIN_PROVIDERS, listed on the page as `NAME_CLIENT_ID`.
 */
const PER_PROVIDER = /\bperProvider\(\s*'([A-Z][A-Z0-9_]*)'\s*\)/g;

/**
 * Upper-case string literals in the configuration code that are not variables. Every other one must be
 * read through one of READS, so a variable read in a new way fails this test instead of slipping by.
 */
const NOT_VARIABLES = new Set([
  'GATEHOUSE_APP_KEY', // the code of the warning printed when a key is generated
]);

function variablesReadByCode(sources: readonly string[]): Set<string> {
  const read = new Set<string>();
  const suffixes = new Set<string>();
  const literals = new Set<string>();
  for (const source of sources) {
    for (const pattern of READS) for (const match of source.matchAll(pattern)) read.add(match[1]!);
    for (const match of source.matchAll(PER_PROVIDER)) suffixes.add(match[1]!);
    for (const match of source.matchAll(/'([A-Z][A-Z0-9_]*)'/g)) literals.add(match[1]!);
  }
  const unexplained = [...literals].filter(
    (name) => !read.has(name) && !suffixes.has(name) && !NOT_VARIABLES.has(name),
  );
  assert.deepEqual(
    unexplained,
    [],
    'upper-case names in src/config that are neither read through read()/merged[]/perProvider() nor listed in NOT_VARIABLES',
  );
  for (const suffix of suffixes) read.add(`NAME_${suffix}`);
  return read;
}

/** The names in the first column of every table row of the page (`A` or `A` / `B`). */
function variablesDocumented(markdown: string): Set<string> {
  const names = new Set<string>();
  for (const line of markdown.split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (cell === undefined) continue;
    for (const match of cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(match[1]!);
  }
  return names;
}

test('docs/configuration.md lists every variable src/config reads, and no other', () => {
  const code = variablesReadByCode(configSources().map((file) => readFileSync(file, 'utf8')));
  const docs = variablesDocumented(readFileSync(join(root, 'docs/configuration.md'), 'utf8'));
  const undocumented = [...code].filter((name) => !docs.has(name)).sort();
  const notRead = [...docs].filter((name) => !code.has(name)).sort();
  assert.deepEqual(undocumented, [], 'read by src/config but missing from docs/configuration.md');
  assert.deepEqual(notRead, [], 'in docs/configuration.md but never read by src/config');
  // The extraction itself works: a handful of variables read in each of the three ways.
  for (const name of [
    'PORT',
    'APP_URL',
    'TOKEN_EXPIRATION',
    'MAIL_PASSWORD',
    'WEBHOOK_TIMEOUT',
    'AUTH_CACHE',
    'LOGIN_PROVIDERS',
    'NAME_CLIENT_ID',
  ]) {
    assert.ok(code.has(name), `${name} was not found in src/config`);
  }
});

test('the extraction sees each way of reading, and the table parser each way of listing', () => {
  const code = variablesReadByCode([
    "const a = read('ALPHA') ?? 'x';",
    "integer(\n  read,\n  'BETA',\n  1)",
    "merged['GAMMA'] || null",
    "const label = perProvider('LABEL').value;",
  ]);
  assert.deepEqual([...code].sort(), ['ALPHA', 'BETA', 'GAMMA', 'NAME_LABEL']);
  assert.throws(() => variablesReadByCode(["const x = process.env.DELTA ?? 'DELTA';"]), /DELTA/);
  const docs = variablesDocumented(
    '| Variable | Default |\n|---|---|\n| `ONE` | `TWO` |\n| `THREE` / `FOUR` | x |\nNot `FIVE` in prose.',
  );
  assert.deepEqual([...docs].sort(), ['FOUR', 'ONE', 'THREE']);
});
