/**
 * SANCTUM_STATEFUL_DOMAINS: the first-party browser front ends whose requests to /api/* may use the
 * web session cookie (Laravel Sanctum's `EnsureFrontendRequestsAreStateful::fromFrontend`).
 *
 * An entry is `host[:port]`:
 * - no port: matches the scheme's default port only (http 80, https 443) — what a browser's Origin
 *   carries when it shows no port; `localhost` does not match `http://localhost:5173`;
 * - `:N`: matches exactly that port (compared as the effective port, so `example.com:443` matches
 *   `https://example.com`);
 * - `:*`: any port, the default included;
 * - `*` in the host stands for one or more DNS labels or parts of one (`*.example.com` matches
 *   `app.example.com` and `a.b.example.com`, not `example.com` itself nor `evilexample.com`).
 *
 * Unlike Sanctum, which string-matches `host/…` against the raw header, the header is parsed as a URL
 * first, so a Referer like `https://evil.test/.example.com/` cannot pass as `*.example.com`; only
 * http(s) origins count (`Origin: null`, extensions and files never do).
 */

export interface DomainPattern {
  /** The entry as configured, for messages. */
  readonly entry: string;
  /** The host in canonical form (lower case, punycode), `*` kept: what `host` was made from. */
  readonly hostname: string;
  readonly host: RegExp;
  /** undefined: the scheme's default port; '*': any; else that port. */
  readonly port: number | '*' | undefined;
}

export interface StatefulDomains {
  readonly patterns: readonly DomainPattern[];
  /** Whether this Origin (or any http(s) URL) names a listed host[:port]. */
  matches(url: string | undefined): boolean;
  /**
   * Sanctum's "request from the front end": the Origin header decides when present (even when it is
   * `null`: a browser hiding the origin must not be trusted on the strength of a Referer); else the Referer.
   */
  fromFrontend(origin: string | undefined, referer: string | undefined): boolean;
}

export class StatefulDomainError extends Error {}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };
/** One wildcard: label characters, and dots only between labels (never a leading or trailing one). */
const WILDCARD = '[a-z0-9_-]+(?:\\.[a-z0-9_-]+)*';
/** Browsers send short origins; a pathological header is not worth parsing. */
const MAX_HEADER_LENGTH = 4096;

export function parseStatefulDomain(raw: string): DomainPattern {
  const entry = raw.trim().toLowerCase();
  const fail = (why: string) => new StatefulDomainError(`entry "${raw}" ${why}`);
  if (entry === '') throw fail('is empty');
  if (/[/?#@\\\s]/.test(entry)) throw fail('must be host[:port] only, without scheme or path');

  let host = entry;
  let portText: string | undefined;
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close < 0) throw fail('has an unclosed IPv6 bracket');
    host = entry.slice(0, close + 1);
    const rest = entry.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw fail('must be host[:port]');
      portText = rest.slice(1);
    }
  } else if ((entry.match(/:/g) ?? []).length > 1) {
    // A bare IPv6 address such as Sanctum's default `::1` (it cannot carry a port unbracketed).
    host = `[${entry}]`;
  } else if (entry.includes(':')) {
    [host, portText] = entry.split(':') as [string, string];
  }

  const port = parsePort(portText, fail);
  if (host === '*') throw fail('would trust every site; name the domain (e.g. *.example.com)');
  let normalised: string;
  try {
    // The same canonical form (lower case, punycode, compressed IPv6) as the parsed Origin header.
    normalised = new URL(`http://${host}/`).hostname;
  } catch {
    throw fail('is not a valid host name');
  }
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9_*.-]+)$/.test(normalised) || /^\.|\.\.|\.$/.test(normalised)) {
    throw fail('is not a valid host name');
  }
  const source = normalised
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(WILDCARD);
  return { entry: raw.trim(), hostname: normalised, host: new RegExp(`^${source}$`), port };
}

function parsePort(
  text: string | undefined,
  fail: (why: string) => StatefulDomainError,
): number | '*' | undefined {
  if (text === undefined) return undefined;
  if (text === '*') return '*';
  const port = /^\d{1,5}$/.test(text) ? Number(text) : 0;
  if (port < 1 || port > 65535) throw fail('has an invalid port');
  return port;
}

export function statefulDomains(entries: readonly string[]): StatefulDomains {
  const patterns = entries.map(parseStatefulDomain);
  const matches = (url: string | undefined): boolean => {
    const target = hostAndPort(url);
    if (target === null) return false;
    return patterns.some(
      (p) =>
        p.host.test(target.host) &&
        (p.port === '*' || (p.port === undefined ? target.isDefaultPort : p.port === target.port)),
    );
  };
  return {
    patterns,
    matches,
    fromFrontend: (origin, referer) => (origin !== undefined ? matches(origin) : matches(referer)),
  };
}

function hostAndPort(url: string | undefined): { host: string; port: number; isDefaultPort: boolean } | null {
  if (url === undefined || url.length > MAX_HEADER_LENGTH) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const defaultPort = DEFAULT_PORTS[parsed.protocol];
  if (defaultPort === undefined || parsed.hostname === '') return null;
  // URL drops a port equal to the scheme's default, so '' is exactly "the default port".
  return {
    host: parsed.hostname,
    port: parsed.port === '' ? defaultPort : Number(parsed.port),
    isDefaultPort: parsed.port === '',
  };
}
