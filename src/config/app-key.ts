import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateDirectory } from '../lib/private-files.ts';
import { ConfigError } from './parsers.ts';

/**
 * APP_KEY signs verification links and CSRF tokens. When unset, a 256-bit key is generated once into
 * storage/app.key (mode 0600) so that restarts keep links and sessions valid. `store: false` is for a
 * run that must write nothing (import:laravel --dry-run, which signs nothing): a missing key is made up
 * for this process only.
 */
export function appKey(raw: string | undefined, storagePath: string, store = true): Buffer {
  if (raw !== undefined) {
    const key = raw.startsWith('base64:') ? Buffer.from(raw.slice(7), 'base64') : Buffer.from(raw, 'utf8');
    if (key.length < 32)
      throw new ConfigError('APP_KEY', 'must hold at least 32 bytes (use base64:<44 chars>)');
    return key;
  }
  const file = join(storagePath, 'app.key');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    const key = Buffer.from(stored.replace(/^base64:/, ''), 'base64');
    if (key.length < 32)
      throw new ConfigError('APP_KEY', `in ${file} is too short; delete the file to regenerate`);
    return key;
  }
  if (!store) return randomBytes(32);
  privateDirectory(storagePath);
  const key = randomBytes(32);
  writeFileSync(file, `base64:${key.toString('base64')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  process.emitWarning(`APP_KEY is not set; generated a new key into ${file}`, { code: 'GATEHOUSE_APP_KEY' });
  return key;
}
