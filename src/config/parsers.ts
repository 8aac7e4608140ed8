import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { parseStatefulDomain, StatefulDomainError } from '../auth/guards/stateful-domains.ts';
import { isEmail } from '../lib/validation.ts';

/** A bad value: the start stops with one line naming the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
  }
}

/** Reads one variable: trimmed, undefined when unset or empty. */
export type Reader = (name: string) => string | undefined;

export function integer(
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

/**
 * The longest lifetime any setting takes: ten years, in minutes. Past it a lifetime leaves what a date
 * can hold — JavaScript's Date, MySQL's DATETIME (up to 9999), the OpenID provider's lifetimes — and
 * a row stored with such an expiry fails every page that shows it; no lifetime that long is meant.
 */
export const MAX_MINUTES = 5_259_600;

/** A lifetime in minutes: 1 to MAX_MINUTES. */
export function minutes(read: Reader, name: string, fallback: number): number {
  return integer(read, name, fallback, 1, MAX_MINUTES);
}

/** A lifetime in seconds: 1 to MAX_MINUTES of them. */
export function seconds(read: Reader, name: string, fallback: number): number {
  return integer(read, name, fallback, 1, MAX_MINUTES * 60);
}

/** A lifetime in minutes that may be "never" (null). */
export function nullableMinutes(
  read: Reader,
  name: string,
  fallback: number,
  present: boolean,
): number | null {
  const raw = read(name);
  // Set but empty means "never", like `null`; unset means the default.
  if (raw === undefined) return present ? null : fallback;
  if (raw.toLowerCase() === 'null') return null;
  return minutes(read, name, fallback);
}

export function trustProxy(raw: string | undefined): false | number | string {
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

export function oneOf<T extends string>(read: Reader, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

export function url(read: Reader, name: string, fallback: string): string {
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

export function redisUrl(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError('REDIS_URL', `must start with redis:// or rediss://`);
  return raw;
}

export function redisPrefix(raw: string | undefined): string {
  if (raw === undefined) return 'gatehouse:';
  if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(raw)) {
    throw new ConfigError('REDIS_PREFIX', 'may hold only letters, digits, _ : . and - (at most 64)');
  }
  return raw;
}

export function tokenPrefix(raw: string | undefined): string {
  if (raw === undefined) return '';
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(raw)) {
    throw new ConfigError('TOKEN_PREFIX', 'may hold only letters, digits, _ and - (at most 32)');
  }
  return raw;
}

export function statefulDomains(raw: string | undefined, appHost: string): string[] {
  const base = raw ?? 'localhost,localhost:3000,127.0.0.1,127.0.0.1:8000,::1';
  const hosts = base
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  // Like Sanctum's default, the application's own host always counts as first-party — unless it is
  // the placeholder of PORT=0 (a port picked at listen time), which no browser origin can carry.
  if (raw === undefined && !appHost.endsWith(':0')) hosts.push(appHost.toLowerCase());
  return hostPatterns('SANCTUM_STATEFUL_DOMAINS', hosts);
}

/** Checked `host[:port]` patterns (auth/stateful-domains.ts), without repeats. */
function hostPatterns(variable: string, hosts: readonly string[]): string[] {
  for (const host of hosts) {
    // A typo here would silently never match (or match too much): refuse to start instead.
    try {
      parseStatefulDomain(host);
    } catch (error) {
      if (!(error instanceof StatefulDomainError)) throw error;
      throw new ConfigError(variable, error.message);
    }
  }
  return [...new Set(hosts)];
}

/**
 * FORWARD_AUTH_DOMAINS: the same `host[:port]` patterns as SANCTUM_STATEFUL_DOMAINS (one matcher,
 * auth/stateful-domains.ts: no port = the scheme's default port, `:*` any port, `*.example.com`
 * subdomains only). Unset or empty: no redirect target is ever allowed.
 */
export function forwardAuthDomains(raw: string | undefined): string[] {
  const hosts = (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  return hostPatterns('FORWARD_AUTH_DOMAINS', hosts);
}

/**
 * SESSION_DOMAIN (`example.com`, Laravel's leading dot accepted): a registrable name that APP_URL's
 * host is, or lies under. A browser drops a cookie whose Domain does not cover the host that set it,
 * so any other value would silently log nobody in: the start stops instead. IP addresses cannot carry
 * a Domain cookie at all.
 */
export function sessionDomain(raw: string | undefined, appHostname: string): string | null {
  if (raw === undefined) return null;
  const fail = (why: string) => new ConfigError('SESSION_DOMAIN', `${why} (got "${raw}")`);
  const name = raw.toLowerCase().replace(/^\./, '');
  let normalised: string;
  try {
    normalised = new URL(`http://${name}/`).hostname;
  } catch {
    throw fail('must be a domain name such as example.com');
  }
  if (normalised !== name || !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(name) || isIP(name) !== 0) {
    throw fail('must be a domain name with at least one dot, such as example.com');
  }
  if (appHostname !== name && !appHostname.endsWith(`.${name}`)) {
    throw fail(`must be the host of APP_URL (${appHostname}) or a parent domain of it`);
  }
  return name;
}

export function localPath(raw: string): string {
  // Only same-site absolute paths: "//evil" and "/\evil" would be read by browsers as another host.
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) {
    throw new ConfigError('LOGIN_REDIRECT', `must be a path starting with / (got "${raw}")`);
  }
  return raw;
}

/**
 * The sender must pass the very check every mail goes through (mail/message.ts): a sender it refuses
 * would make every mail fail at delivery, so it stops the start instead.
 */
export function mailAddress(raw: string): string {
  if (/[\r\n<>,;\s]/.test(raw) || !isEmail(raw)) {
    throw new ConfigError(
      'MAIL_FROM_ADDRESS',
      `must be a plain e-mail address with a dotted domain, e.g. no-reply@example.com (got "${raw}")`,
    );
  }
  return raw;
}

/**
 * no-reply@<APP_URL host>, when that host can be a mail domain. For a host like `localhost`, another
 * single-label name or an IP address it cannot (no dotted domain), so the default is the conventional
 * local name `localhost.localdomain` instead of an address every mail would be refused with.
 */
export function defaultSender(hostname: string): string {
  const host = hostname.replace(/^\[|\]$/g, '');
  const usable = host.includes('.') && isIP(host) === 0 && isEmail(`no-reply@${host}`);
  return `no-reply@${usable ? host : 'localhost.localdomain'}`;
}

export function headerSafe(name: string, raw: string): string {
  if (/[\r\n]/.test(raw)) throw new ConfigError(name, 'must not contain line breaks');
  return raw;
}

export function resolvePath(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** true/false, 1/0, yes/no, on/off; unset → `fallback`. */
export function boolean(read: Reader, name: string, fallback: boolean): boolean {
  const raw = read(name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

/**
 * TOKEN_ABILITIES: the abilities a user may tick when creating a token on the account page, each
 * `<resource>:<action>` (`[a-z0-9_-]+` both), comma-separated. `*` is not offered: a token made in the
 * UI holds what its owner ticked, never "everything, including abilities added later".
 */
export function tokenAbilities(raw: string | undefined): string[] {
  if (raw === undefined) return ['posts:read', 'posts:write'];
  const abilities = [
    ...new Set(
      raw
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    ),
  ];
  for (const ability of abilities) {
    if (!/^[a-z0-9_-]+:[a-z0-9_-]+$/.test(ability))
      throw new ConfigError('TOKEN_ABILITIES', `must list abilities like posts:read (got "${ability}")`);
  }
  if (abilities.length === 0) throw new ConfigError('TOKEN_ABILITIES', 'must list at least one ability');
  return abilities;
}
