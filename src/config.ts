import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { parseStatefulDomain, StatefulDomainError } from './auth/stateful-domains.ts';

/** The whole service configuration: read once from the environment, validated, frozen. */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly appName: string;
  /** `{base_url}` without a trailing slash. Every link in every mail is built from it, never from headers. */
  readonly appUrl: string;
  readonly secureCookies: boolean;
  /** Secret for HMAC signatures (verification links, CSRF tokens) and outbox encryption. */
  readonly appKey: Buffer;
  readonly storagePath: string;
  readonly database: DatabaseConfig;
  readonly redisUrl: string | null;
  /** Prefix of every Redis key (REDIS_PREFIX), so several deployments or test runs can share one Redis. */
  readonly redisPrefix: string;
  readonly sessionLifetimeMinutes: number;
  readonly sessionAbsoluteLifetimeMinutes: number;
  readonly adminSessionLifetimeMinutes: number;
  readonly rememberLifetimeMinutes: number;
  /** Minutes from creation; null = tokens never expire. */
  readonly tokenExpirationMinutes: number | null;
  readonly tokenPrefix: string;
  readonly statefulDomains: readonly string[];
  readonly loginRedirect: string;
  readonly locale: string;
  readonly fallbackLocale: string;
  readonly mail: MailConfig;
  /**
   * TRUST_PROXY. false (unset): X-Forwarded-* are ignored. A number N (`true` = 1): the app is reached
   * only through N proxies, so the client is the address the outermost of them appended — never a
   * value the client wrote into the header itself. Or the proxies' addresses/CIDRs, comma-separated.
   */
  readonly trustProxy: false | number | string;
  readonly apiRateLimitPerMinute: number;
  readonly loginMaxAttempts: number;
  readonly loginDecaySeconds: number;
  readonly passwordResetExpireMinutes: number;
  readonly verificationExpireMinutes: number;
  readonly bodyLimitBytes: number;
  readonly hashConcurrency: number;
  readonly logLevel: string;
  /** Comma-separated e-mail domains whose users may enter the panel without the flag; empty = flag only. */
  readonly panelEmailDomains: readonly string[];
}

export type DatabaseConfig =
  | { readonly dialect: 'sqlite'; readonly filename: string }
  | { readonly dialect: 'postgres'; readonly url: string };

export interface MailConfig {
  readonly mailer: 'smtp' | 'log';
  readonly host: string;
  readonly port: number;
  readonly username: string | null;
  readonly password: string | null;
  readonly fromAddress: string;
  readonly fromName: string;
  /** `tls` = implicit TLS (port 465); otherwise STARTTLS is used when the server offers it. */
  readonly encryption: 'tls' | 'starttls' | 'none';
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
  }
}

type Env = Record<string, string | undefined>;

const SUPPORTED_LOCALES = ['en', 'de', 'fr', 'es'];

/**
 * Reads `.env` from `cwd` (real environment variables win), validates every value and returns a frozen Config.
 * Throws ConfigError naming the first bad variable, so a start fails with one clear line.
 */
export function loadConfig(
  env: Env = process.env,
  options: { cwd?: string; readDotEnv?: boolean } = {},
): Config {
  const cwd = options.cwd ?? process.cwd();
  const dotEnvPath = join(cwd, '.env');
  const merged: Env =
    options.readDotEnv !== false && existsSync(dotEnvPath)
      ? { ...parseEnv(readFileSync(dotEnvPath, 'utf8')), ...env }
      : { ...env };
  const read = (name: string): string | undefined => {
    const value = merged[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const port = integer(read, 'PORT', 3000, 0, 65535);
  const host = read('HOST') ?? '127.0.0.1';
  const appUrl = url(read, 'APP_URL', `http://127.0.0.1:${port}`);
  const storagePath = resolvePath(cwd, read('STORAGE_PATH') ?? 'storage');
  const mailMailer = oneOf(read, 'MAIL_MAILER', ['smtp', 'log'] as const, 'log');
  const appHost = new URL(appUrl).host;

  const settings: Omit<Config, 'appKey'> = {
    host,
    port,
    appName: read('APP_NAME') ?? 'Gatehouse',
    appUrl,
    secureCookies: appUrl.startsWith('https:'),
    storagePath,
    database: database(read('DATABASE_URL') ?? 'sqlite:storage/database.sqlite', cwd),
    redisUrl: redisUrl(read('REDIS_URL')),
    redisPrefix: redisPrefix(read('REDIS_PREFIX')),
    sessionLifetimeMinutes: integer(read, 'SESSION_LIFETIME', 120, 1),
    sessionAbsoluteLifetimeMinutes: integer(read, 'SESSION_ABSOLUTE_LIFETIME', 1440, 1),
    adminSessionLifetimeMinutes: integer(read, 'ADMIN_SESSION_LIFETIME', 30, 1),
    rememberLifetimeMinutes: integer(read, 'REMEMBER_LIFETIME', 43200, 1),
    tokenExpirationMinutes: nullableInteger(
      read,
      'TOKEN_EXPIRATION',
      525960,
      merged['TOKEN_EXPIRATION'] !== undefined,
    ),
    tokenPrefix: tokenPrefix(read('TOKEN_PREFIX')),
    statefulDomains: statefulDomains(read('SANCTUM_STATEFUL_DOMAINS'), appHost),
    loginRedirect: localPath(read('LOGIN_REDIRECT') ?? '/dashboard'),
    locale: oneOf(read, 'APP_LOCALE', SUPPORTED_LOCALES, 'en'),
    fallbackLocale: oneOf(read, 'APP_FALLBACK_LOCALE', SUPPORTED_LOCALES, 'en'),
    mail: {
      mailer: mailMailer,
      host: read('MAIL_HOST') ?? '127.0.0.1',
      port: integer(read, 'MAIL_PORT', 587, 1, 65535),
      username: read('MAIL_USERNAME') ?? null,
      password: merged['MAIL_PASSWORD'] || null,
      fromAddress: mailAddress(read('MAIL_FROM_ADDRESS') ?? `no-reply@${new URL(appUrl).hostname}`),
      fromName: headerSafe('MAIL_FROM_NAME', read('MAIL_FROM_NAME') ?? read('APP_NAME') ?? 'Gatehouse'),
      encryption: oneOf(read, 'MAIL_ENCRYPTION', ['tls', 'starttls', 'none'] as const, 'starttls'),
    },
    trustProxy: trustProxy(read('TRUST_PROXY')),
    apiRateLimitPerMinute: integer(read, 'API_RATE_LIMIT', 60, 0),
    loginMaxAttempts: integer(read, 'LOGIN_MAX_ATTEMPTS', 5, 1),
    loginDecaySeconds: integer(read, 'LOGIN_DECAY_SECONDS', 60, 1),
    passwordResetExpireMinutes: integer(read, 'PASSWORD_RESET_EXPIRE', 60, 1),
    verificationExpireMinutes: integer(read, 'VERIFICATION_EXPIRE', 60, 1),
    bodyLimitBytes: integer(read, 'BODY_LIMIT', 1024 * 1024, 1024),
    hashConcurrency: integer(read, 'HASH_CONCURRENCY', 2, 1, 64),
    logLevel: oneOf(
      read,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'info',
    ),
    panelEmailDomains: (read('PANEL_EMAIL_DOMAINS') ?? '')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
  };
  // The key comes last: when another variable is invalid, the start stops with that one line and no
  // key file (and no "generated a key" warning) is left behind.
  const config: Config = { ...settings, appKey: appKey(read('APP_KEY'), storagePath) };
  return deepFreeze(config);
}

type Reader = (name: string) => string | undefined;

function integer(
  read: Reader,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = read(name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got "${raw}")`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max} (got ${raw})`);
  return value;
}

function nullableInteger(read: Reader, name: string, fallback: number, present: boolean): number | null {
  const raw = read(name);
  // Set but empty means "never", like `null`; unset means the default.
  if (raw === undefined) return present ? null : fallback;
  if (raw.toLowerCase() === 'null') return null;
  return integer(read, name, fallback, 1);
}

function trustProxy(raw: string | undefined): false | number | string {
  const value = raw?.toLowerCase();
  if (value === undefined || ['0', 'false', 'no', 'off'].includes(value)) return false;
  if (['true', 'yes', 'on'].includes(value)) return 1;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  const valid = (entry: string) => {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 4 ? 32 : 128;
    return (
      family !== 0 &&
      extra === undefined &&
      (bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits))
    );
  };
  if (!entries.every(valid)) {
    throw new ConfigError(
      'TRUST_PROXY',
      `must be true/false, a number of proxy hops, or proxy addresses/CIDRs (got "${raw}")`,
    );
  }
  return entries.join(',');
}

function oneOf<T extends string>(read: Reader, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

function url(read: Reader, name: string, fallback: string): string {
  const raw = read(name) ?? fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${raw}")`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${raw}")`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

function database(raw: string, cwd: string): DatabaseConfig {
  if (raw === 'sqlite::memory:') return { dialect: 'sqlite', filename: ':memory:' };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError('DATABASE_URL', 'must name a file after sqlite: (got "sqlite:")');
    return { dialect: 'sqlite', filename: resolvePath(cwd, path) };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    // pg would silently fall back to localhost and the OS user's database: name the server or socket.
    if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
      throw new ConfigError('DATABASE_URL', 'must name a host: postgres://user@host:port/database');
    }
    return { dialect: 'postgres', url: raw };
  }
  throw new ConfigError(
    'DATABASE_URL',
    `must be sqlite:PATH, sqlite::memory: or postgres://… (got "${raw}")`,
  );
}

function redisUrl(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError('REDIS_URL', `must start with redis:// or rediss://`);
  return raw;
}

function redisPrefix(raw: string | undefined): string {
  if (raw === undefined) return 'gatehouse:';
  if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(raw)) {
    throw new ConfigError('REDIS_PREFIX', 'may hold only letters, digits, _ : . and - (at most 64)');
  }
  return raw;
}

function tokenPrefix(raw: string | undefined): string {
  if (raw === undefined) return '';
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(raw)) {
    throw new ConfigError('TOKEN_PREFIX', 'may hold only letters, digits, _ and - (at most 32)');
  }
  return raw;
}

function statefulDomains(raw: string | undefined, appHost: string): string[] {
  const base = raw ?? 'localhost,localhost:3000,127.0.0.1,127.0.0.1:8000,::1';
  const hosts = base
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  // Like Sanctum's default, the application's own host always counts as first-party — unless it is
  // the placeholder of PORT=0 (a port picked at listen time), which no browser origin can carry.
  if (raw === undefined && !appHost.endsWith(':0')) hosts.push(appHost.toLowerCase());
  for (const host of hosts) {
    // A typo here would silently never match (or match too much): refuse to start instead.
    try {
      parseStatefulDomain(host);
    } catch (error) {
      if (!(error instanceof StatefulDomainError)) throw error;
      throw new ConfigError('SANCTUM_STATEFUL_DOMAINS', error.message);
    }
  }
  return [...new Set(hosts)];
}

function localPath(raw: string): string {
  // Only same-site absolute paths: "//evil" and "/\evil" would be read by browsers as another host.
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) {
    throw new ConfigError('LOGIN_REDIRECT', `must be a path starting with / (got "${raw}")`);
  }
  return raw;
}

function mailAddress(raw: string): string {
  if (/[\r\n<>,;\s]/.test(raw) || !/^[^@]+@[^@]+$/.test(raw)) {
    throw new ConfigError('MAIL_FROM_ADDRESS', `must be a plain e-mail address (got "${raw}")`);
  }
  return raw;
}

function headerSafe(name: string, raw: string): string {
  if (/[\r\n]/.test(raw)) throw new ConfigError(name, 'must not contain line breaks');
  return raw;
}

function resolvePath(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * APP_KEY signs verification links and CSRF tokens. When unset, a 256-bit key is generated once into
 * storage/app.key (mode 0600) so that restarts keep links and sessions valid.
 */
function appKey(raw: string | undefined, storagePath: string): Buffer {
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
  mkdirSync(storagePath, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `base64:${key.toString('base64')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  process.emitWarning(`APP_KEY is not set; generated a new key into ${file}`, { code: 'GATEHOUSE_APP_KEY' });
  return key;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
