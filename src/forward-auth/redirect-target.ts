import type { StatefulDomains } from '../auth/guards/stateful-domains.ts';

/** Longer than any URL a proxy would hand us for a real page, short enough to keep in a session. */
const MAX_TARGET_LENGTH = 2048;

/**
 * The absolute URL a login may end on (`/login?redirect=…`, docs/integrations/forward-auth.md), or null when it must be
 * ignored. Allowed: http(s) URLs whose host[:port] FORWARD_AUTH_DOMAINS lists (`allowed`), and pages
 * of Gatehouse itself (`appOrigin`).
 *
 * Why each refusal (every one is a known open-redirect trick):
 * - only `http://` and `https://` written out: `javascript:`, `data:`, `//evil.test` (scheme-relative)
 *   and `https:evil.test` (which URL parsers complete differently) never pass;
 * - no control characters, whitespace or backslashes anywhere: browsers drop CR/LF/tab inside URLs
 *   and read `\` as `/`, so what we checked would not be what they follow;
 * - no user info: `https://app.example.com@evil.test/` is a URL for evil.test, and a login has no
 *   business sending credentials along;
 * - the host is compared after WHATWG parsing (lower case, punycode for IDN, `%2e` decoded), the form
 *   a browser resolves, so `APP.Example.com`, `ａｐｐ.example.com` or `app.example.com。evil.test` are
 *   judged as what they are;
 * - the URL handed back is the parsed, re-serialised one, never the raw text: the Location header
 *   then holds exactly the URL that was checked.
 */
export function redirectTarget(raw: unknown, allowed: StatefulDomains, appOrigin: string): string | null {
  if (typeof raw !== 'string' || raw.length > MAX_TARGET_LENGTH) return null;
  if (!/^https?:\/\/[^/]/i.test(raw) || /[\p{Cc}\p{Z}\s\\]/u.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '' || url.hostname === '') return null;
  if (url.origin !== appOrigin && !allowed.matches(url.href)) return null;
  return url.href;
}
