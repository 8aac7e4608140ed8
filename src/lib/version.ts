import { readFileSync } from 'node:fs';

/** The package's version (package.json): `gatehouse --version` and the OpenAPI document's `info.version`. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
