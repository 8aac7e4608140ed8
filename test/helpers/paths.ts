import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root. Tests run compiled, from dist/test/ (scripts/build.mjs), so paths to the
 * repository's own files (README, package.json, bin/, test/artifacts/) start here, not at the test.
 */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** `src/server.ts` → the compiled file every process runs, dist/src/server.js. */
export function compiled(source: string): string {
  return join(ROOT, 'dist', source.replace(/\.ts$/, '.js'));
}

/** What `npm start` runs (after its build). */
export const SERVER_ENTRY = compiled('src/server.ts');
/** The CLI as installed (package.json `bin`): it runs the compiled CLI from dist/. */
export const BIN = join(ROOT, 'bin', 'gatehouse.js');
/** Screenshots and other files to look at after a run (git-ignored). */
export const ARTIFACTS = join(ROOT, 'test', 'artifacts');
