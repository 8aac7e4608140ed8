import { parseStatefulDomain } from '../auth/guards/stateful-domains.ts';

/**
 * The CSP `form-action` sources a page needs so that a login form may end on a FORWARD_AUTH_DOMAINS
 * host. Browsers check form-action against every redirect a form submission follows (CSP Level 3,
 * "form-action"; Chromium enforces it), so under `form-action 'self'` alone the 302 of `POST /login`
 * (or of the two-factor challenge) to `https://app.example.com/…` is blocked and the user stays on the
 * login page, signed in but not sent back. Found by the browser run behind a real nginx.
 *
 * Each pattern becomes a host-source with the `http://` scheme, which CSP also lets match `https://`
 * (an upgrade), as FORWARD_AUTH_DOMAINS allows both: no port = the scheme's default port (80 or 443, as
 * in the allow-list), `:N` and `:*` as written, `*.example.com` as written. CSP has no wildcard inside
 * a label, so `app-*.example.com` widens to `*.example.com` here; IPv6 hosts (which CSP cannot name)
 * are left out. Only where a form may go is widened: /login still decides where a login really goes.
 */
export function formActionSources(patterns: readonly string[]): string[] {
  const sources = new Set<string>();
  for (const entry of patterns) {
    const { hostname, port } = parseStatefulDomain(entry);
    if (hostname.startsWith('[')) continue;
    const labels = hostname.split('.');
    const lastWild = labels.findLastIndex((label) => label.includes('*'));
    let host = hostname;
    if (lastWild > 0 || (lastWild === 0 && labels[0] !== '*')) {
      const suffix = labels.slice(lastWild + 1);
      if (suffix.length < 2) continue;
      host = `*.${suffix.join('.')}`;
    }
    sources.add(`http://${host}${port === undefined ? '' : `:${port}`}`);
  }
  return [...sources];
}
