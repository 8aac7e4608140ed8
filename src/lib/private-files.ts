import { chmodSync, mkdirSync } from 'node:fs';

/**
 * Gatehouse's files hold secrets (the SQLite database: password hashes, session and token digests;
 * storage/: the app key, mails with working links), so they are the owner's alone (docs/security.md):
 * directories 0700, files 0600. `mode` at creation is reduced by the umask and does nothing to what
 * exists, so each is also chmod-ed — an existing 0644 database is tightened on the next start.
 */
export const PRIVATE_DIRECTORY = 0o700;
export const PRIVATE_FILE = 0o600;

/** Creates `dir` (and missing parents, 0700) and makes it owner-only. */
export function privateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY });
  chmodSync(dir, PRIVATE_DIRECTORY);
}

/** Makes an existing file owner-only; one that does not exist (yet) is left alone. */
export function tightenFile(file: string): void {
  tighten(file, PRIVATE_FILE);
}

/** Makes an existing directory owner-only; one that does not exist is not created. */
export function tightenDirectory(dir: string): void {
  tighten(dir, PRIVATE_DIRECTORY);
}

function tighten(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
