import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseConfig } from '../config.ts';
import { ConfigError, resolvePath } from './parsers.ts';

/** DATABASE_URL when unset: the one SQLite file whose folder (storage/) is created on first start. */
export const DEFAULT_DATABASE = 'sqlite:storage/database.sqlite';

/**
 * A database URL as DATABASE_URL takes it. `name` is what an error names: the variable, or the CLI
 * option that passed the URL (import:laravel --from).
 */
export function parseDatabaseUrl(raw: string, cwd: string, name = 'DATABASE_URL'): DatabaseConfig {
  if (raw === 'sqlite::memory:') return { dialect: 'sqlite', filename: ':memory:' };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError(name, 'must name a file after sqlite: (got "sqlite:")');
    const filename = resolvePath(cwd, path);
    // Only the default's storage/ folder is created. A folder named in DATABASE_URL that is missing is
    // most often a typo or an unmounted volume: creating it would start an empty database there. (A
    // source named by import:laravel --from is only read, and opening it says when it does not exist.)
    const folder = dirname(filename);
    if (name === 'DATABASE_URL' && raw !== DEFAULT_DATABASE && !existsSync(folder)) {
      throw new ConfigError(name, `names a folder that does not exist: ${folder} (create it first)`);
    }
    return { dialect: 'sqlite', filename };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, 'is not a valid postgres:// URL');
    }
    // pg would silently fall back to localhost and the OS user's database: name the server or socket.
    if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
      throw new ConfigError(name, 'must name a host: postgres://user@host:port/database');
    }
    return { dialect: 'postgres', url: raw };
  }
  if (/^(mysql|mariadb):\/\//.test(raw)) return { dialect: 'mysql', url: mysqlUrl(raw, name) };
  throw new ConfigError(
    name,
    `must be sqlite:PATH, sqlite::memory:, postgres://… or mysql://… (got "${raw}")`,
  );
}

/**
 * mysql://user:pass@host:port/database (mariadb:// is the same: one driver speaks to both). The
 * database must be named: without it mysql2 connects to none, and the migrations would fail later
 * with a far less clear message. Given back as mysql://, the scheme mysql2 reads.
 */
function mysqlUrl(raw: string, name: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid mysql:// URL');
  }
  if (parsed.hostname === '') {
    throw new ConfigError(name, 'must name a host: mysql://user:pass@host:port/database');
  }
  if (!/^\/[^/]+$/.test(parsed.pathname)) {
    throw new ConfigError(name, 'must name one database: mysql://user:pass@host:port/database');
  }
  return raw.replace(/^mariadb:/, 'mysql:');
}
