// Compiles the TypeScript of src/, test/ and bench/ into dist/ (git-ignored), which is what every
// process runs: `npm start` (dist/src/server.js), the tests, the bench and bin/gatehouse.js.
//
// - Each .ts file is transformed on its own by esbuild (types stripped, nothing bundled), and its
//   relative `./x.ts` import specifiers become `./x.js`. Types are checked by `npm run typecheck`
//   (tsc --noEmit), not here. esbuild took 0.5 s for the ~500 files against 9 s for
//   `tsc --noCheck` with rewriteRelativeImportExtensions on the 2-core CI machine
//   (docs/contributing/tests-and-ci.md).
// - Every other file of those folders (language files, the password list, assets, test fixtures) is
//   copied beside the output, so code finds it next to itself as in the source tree.
// - src/http/assets/passkeys.js is bundled with @simplewebauthn/browser for the browser.
// - Only what changed since the last build is redone (a build with nothing to do takes a few
//   milliseconds), and outputs whose source is gone are removed (a deleted test must not run on).
//
// `node scripts/build.mjs` builds; `--check` only says whether dist/ is up to date (exit 1 if not);
// `--if-possible` (npm's `prepare`) skips with a note where esbuild, a devDependency, is not installed.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
const SOURCES = ['src', 'test', 'bench'];
/** Never copied: test output (screenshots), and the notes that only explain the source. */
const SKIP = new Set(['artifacts', 'node_modules']);
/** Files bundled for the browser instead of copied (imports of npm packages the browser cannot resolve). */
const BROWSER_BUNDLES = new Set(['src/http/assets/passkeys.js']);
/** The suffix of a file being written (compile): never an orphan, never a source. */
const TEMPORARY = '.building';
/** A change here, or another esbuild, rebuilds everything. */
const STAMP_FILE = join(DIST, '.build-stamp');

/** `src/a/b.ts` → `dist/src/a/b.js`; any other file keeps its name. */
export function outputOf(source) {
  return join(DIST, source.endsWith('.ts') ? source.slice(0, -3) + '.js' : source);
}

function listSources() {
  const files = [];
  const walk = (folder) => {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
      if (SKIP.has(entry.name)) continue;
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.endsWith('.md') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const folder of SOURCES) walk(folder);
  return files;
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** What, besides a file's own source, its output depends on: this script and the tools' versions. */
function currentStamp() {
  const hash = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url)));
  for (const pkg of ['esbuild', '@simplewebauthn/browser']) {
    try {
      hash.update(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json')));
    } catch {}
  }
  return hash.digest('hex');
}

/** The sources whose output is missing or older than they are; every source when the stamp changed. */
function staleSources(sources) {
  let stamp = '';
  try {
    stamp = readFileSync(STAMP_FILE, 'utf8');
  } catch {}
  const all = stamp !== currentStamp();
  return sources.filter((source) => all || mtime(join(ROOT, source)) > mtime(outputOf(source)));
}

/** Outputs under dist/ whose source no longer exists. */
function orphans(sources) {
  const expected = new Set(sources.map(outputOf));
  const found = [];
  const walk = (folder) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!expected.has(path) && !path.endsWith(TEMPORARY)) found.push(path);
    }
  };
  for (const folder of SOURCES) walk(join(DIST, folder));
  return found;
}

/** True when dist/ holds an up-to-date output for every source and nothing else. */
export function isBuilt() {
  const sources = listSources();
  return staleSources(sources).length === 0 && orphans(sources).length === 0;
}

// `from "./x.ts"`, `import "./x.ts"`, `export … from "../x.ts"` and `import("./x.ts")` as esbuild prints
// them (double quotes, statements at the start of a line): only relative specifiers are rewritten.
const STATIC_SPECIFIER = /^((?:import|export)\b[^;"]*?\bfrom\s*|import\s*)"(\.{1,2}\/[^"\n]*)\.ts"/gm;
const DYNAMIC_SPECIFIER = /\bimport\("(\.{1,2}\/[^"\n]*)\.ts"\)/g;

export function rewriteSpecifiers(code) {
  return code.replace(STATIC_SPECIFIER, '$1"$2.js"').replace(DYNAMIC_SPECIFIER, 'import("$1.js")');
}

async function compiled(esbuild, source) {
  const path = join(ROOT, source);
  if (BROWSER_BUNDLES.has(source)) {
    const result = await esbuild.build({
      entryPoints: [path],
      bundle: true,
      write: false,
      format: 'iife',
      minify: true,
      target: ['es2020'],
      legalComments: 'none',
      logLevel: 'silent',
    });
    return result.outputFiles[0].contents;
  }
  if (!source.endsWith('.ts')) return readFileSync(path);
  const { code } = await esbuild.transform(readFileSync(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: source,
  });
  return rewriteSpecifiers(code);
}

/**
 * Written beside the output and renamed over it: a process that builds at the same time (two CLI
 * commands after a pull) or runs the old output never sees half a file.
 */
async function compile(esbuild, source) {
  const output = outputOf(source);
  mkdirSync(dirname(output), { recursive: true });
  const temporary = `${output}.${process.pid}${TEMPORARY}`;
  writeFileSync(temporary, await compiled(esbuild, source));
  renameSync(temporary, output);
}

async function loadEsbuild() {
  try {
    return await import('esbuild');
  } catch {
    return null;
  }
}

/**
 * Brings dist/ up to date; returns how many files were compiled or copied. Throws when something is
 * stale and esbuild is not installed (unless `ifPossible`, which then only warns).
 */
export async function build({ quiet = false, ifPossible = false } = {}) {
  const started = performance.now();
  const sources = listSources();
  for (const orphan of orphans(sources)) rmSync(orphan, { force: true });
  const stale = staleSources(sources);
  if (stale.length > 0) {
    const esbuild = await loadEsbuild();
    if (!esbuild) {
      const message =
        'dist/ is out of date and esbuild (a devDependency) is not installed: run `npm install` (with ' +
        'devDependencies) and `npm run build`, then install without them if you must.';
      if (ifPossible) {
        process.stderr.write(`gatehouse build skipped: ${message}\n`);
        return 0;
      }
      throw new Error(message);
    }
    // Output first, stamp last: a build cut off half-way is redone from the start next time.
    rmSync(STAMP_FILE, { force: true });
    await Promise.all(stale.map((source) => compile(esbuild, source)));
    writeFileSync(STAMP_FILE, currentStamp());
  }
  if (!quiet && stale.length > 0) {
    const ms = Math.round(performance.now() - started);
    process.stderr.write(`built ${stale.length} of ${sources.length} files into dist/ in ${ms} ms\n`);
  }
  return stale.length;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flags = new Set(process.argv.slice(2));
  if (flags.has('--check')) {
    const built = isBuilt();
    if (!built) process.stderr.write(`${relative(process.cwd(), DIST) || 'dist'}/ is out of date\n`);
    process.exit(built ? 0 : 1);
  }
  try {
    await build({ ifPossible: flags.has('--if-possible') });
  } catch (error) {
    process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
