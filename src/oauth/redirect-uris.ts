/**
 * The rules a client's URIs must meet at registration (docs/guides/oidc-provider.md "Clients"). They
 * are matched character for character afterwards (only a loopback port may differ, RFC 8252 §7.3), so
 * what is registered must already be exactly what a browser will be sent to.
 */
export type UriUse = 'redirect' | 'post_logout' | 'backchannel';

export type UriProblem =
  | 'invalid'
  | 'too_long'
  | 'fragment'
  | 'wildcard'
  | 'credentials'
  | 'dot_segments'
  | 'forbidden_scheme'
  | 'http_not_loopback'
  | 'private_scheme_not_allowed'
  | 'private_scheme_not_reverse_domain';

/** Hosts that are this machine: plain http is allowed there only (RFC 8252 §7.3, §8.3). */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Schemes that run or read something instead of navigating (Keycloak CVE-2026-9086: `javascript:`
 * redirect URIs), or that name no application.
 */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'about:',
  'blob:',
  'filesystem:',
  'view-source:',
  'ws:',
  'wss:',
  'ftp:',
  'mailto:',
  'tel:',
]);

const MAX_LENGTH = 2048;

/** Why `uri` may not be registered for `use`, or null when it may. */
export function uriProblem(uri: string, use: UriUse): UriProblem | null {
  if (uri.length > MAX_LENGTH) return 'too_long';
  // Visible ASCII only: no spaces, controls or characters a browser would re-encode on the way.
  if (!/^[\x21-\x7e]+$/.test(uri)) return 'invalid';
  if (uri.includes('#')) return 'fragment';
  // No pattern of any kind: one exact URI per entry (Keycloak CVE-2024-8883, Authentik CVE-2024-52289).
  if (uri.includes('*')) return 'wildcard';
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'invalid';
  }
  const scheme = parsed.protocol;
  if (FORBIDDEN_SCHEMES.has(scheme)) return 'forbidden_scheme';
  if (scheme === 'https:' || scheme === 'http:') {
    // `https:///cb` parses as https://cb/: what is registered must be what a browser is sent to.
    if (!parsed.hostname || authority(uri) === '') return 'invalid';
    // `https://app.example@evil.example/` reads as app.example to a person and goes to evil.example.
    if (parsed.username !== '' || parsed.password !== '' || authority(uri).includes('@'))
      return 'credentials';
    // `/cb/..;/admin`, `/cb/../x`, `\`: a server behind the client may resolve these differently from
    // how they were compared (Keycloak CVE-2026-3872).
    if (/(^|[/\\])\.\.?(;[^/]*)?([/\\]|$)|\\|%2e|%2f|%5c/i.test(pathOf(uri))) return 'dot_segments';
    if (scheme === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname)) return 'http_not_loopback';
    return null;
  }
  // A private-use scheme of a native app (RFC 8252 §7.1): for redirects only, named after a domain
  // its developer controls, in reverse order (com.example.app:/callback).
  if (use !== 'redirect') return 'private_scheme_not_allowed';
  if (!/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(scheme)) return 'private_scheme_not_reverse_domain';
  if (/(^|\/)\.\.?(\/|$)|\\/.test(uri.slice(scheme.length))) return 'dot_segments';
  return null;
}

/** Whether the URI is plain http on a loopback host or a private-use scheme: a native app's. */
export function isNativeRedirect(uri: string): boolean {
  try {
    const { protocol, hostname } = new URL(uri);
    if (protocol === 'http:') return LOOPBACK_HOSTS.has(hostname);
    return protocol !== 'https:';
  } catch {
    return false;
  }
}

/** Whether the URI is https on a loopback host (allowed, but not beside native redirect URIs). */
export function isHttpsLoopback(uri: string): boolean {
  try {
    const { protocol, hostname } = new URL(uri);
    return protocol === 'https:' && LOOPBACK_HOSTS.has(hostname);
  } catch {
    return false;
  }
}

/** The text between `//` and the first `/`, `?` or `#`, as written. */
function authority(uri: string): string {
  const start = uri.indexOf('//');
  if (start === -1) return '';
  const rest = uri.slice(start + 2);
  const end = rest.search(/[/?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/** The path as written (after the authority, before any query). */
function pathOf(uri: string): string {
  const start = uri.indexOf('//');
  const rest = start === -1 ? uri : uri.slice(start + 2);
  const slash = rest.search(/[/?]/);
  if (slash === -1 || rest[slash] === '?') return '';
  const path = rest.slice(slash);
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}
