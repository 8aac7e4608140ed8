import { readFileSync } from 'node:fs';

/** The package's version (package.json): `gatehouse --version` and the OpenAPI document's `info.version`. */
export function packageVersion(): string {
  // Relative to the compiled file, dist/src/lib/version.js (scripts/build.mjs).
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
