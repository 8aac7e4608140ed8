/** What a proxy reports of the request it is asking about (X-Forwarded-Proto, -Host, -Uri). */
export interface ForwardedRequest {
  readonly proto: string | undefined;
  readonly host: string | undefined;
  readonly uri: string | undefined;
}

/**
 * The URL the browser asked the proxy for, to come back to after login; null when the headers do not
 * make one (missing, not http(s), a host with a path or user info in it, a URI that is not a path).
 * The caller decides whether the headers are believed at all (TRUST_PROXY); /login checks the result
 * against FORWARD_AUTH_DOMAINS again before any browser is sent there.
 */
export function originalUrl(forwarded: ForwardedRequest): string | null {
  const proto = forwarded.proto?.toLowerCase();
  const { host, uri = '/' } = forwarded;
  if ((proto !== 'http' && proto !== 'https') || host === undefined) return null;
  if (!/^[A-Za-z0-9.:[\]_-]{1,255}$/.test(host) || !uri.startsWith('/') || uri.startsWith('//')) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a URI with control characters is refused
  if (uri.length > 2000 || /[\u0000-\u0020\u007f\\]/.test(uri)) return null;
  try {
    return new URL(`${proto}://${host}${uri}`).href;
  } catch {
    return null;
  }
}
