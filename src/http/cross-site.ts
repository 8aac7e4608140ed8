import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';

/** What a FORWARD_AUTH_DOMAINS page may post to Gatehouse: signing in and out, nothing else. */
const FORWARD_AUTH_DOORS = new Set(['/login', '/logout']);

/**
 * Whether a state-changing browser request comes from another site (docs/security.md "Cross-site
 * requests"), judged by what the browser itself says — headers a page's script cannot set:
 *
 * - `Sec-Fetch-Site: cross-site`: the browser states it outright;
 * - an `Origin` that is none of ours: APP_URL's origin, a SANCTUM_STATEFUL_DOMAINS front end, a
 *   FORWARD_AUTH_DOMAINS host for POST /login and POST /logout only (a protected app may offer sign-in
 *   and sign-out; with SESSION_DOMAIN its scripts hold the session cookie's company, and must not
 *   change the account: docs/security.md) — or the origin the request itself was sent to (its Host, and the
 *   scheme Fastify sees): a page posting to the very origin it was loaded from is same-origin by
 *   definition (an instance reached by its address rather than APP_URL, as Rails' origin check
 *   allows too). A cross-site request cannot borrow it: the browser sets Host to the site it
 *   sends to, and sends that site only its own cookies. `Origin: null` (sandboxed frames,
 *   privacy-hiding redirects) is not ours either — unless the browser also says
 *   `Sec-Fetch-Site: same-origin`: a form on a page served with `Referrer-Policy: no-referrer` (the
 *   password-reset page, whose URL holds the token) is posted by Chromium with `Origin: null`, and
 *   the fetch metadata, which no page can set, says where it really came from. No Origin at all
 *   (older browsers, non-browser clients) is left to the CSRF token alone.
 *
 * A second wall behind the CSRF token, not instead of it: a token leaked into another site (a log,
 * a cached page) is still useless from there.
 */
export function crossSiteChecker(services: Services): (request: FastifyRequest) => boolean {
  const appOrigin = new URL(services.config.appUrl).origin;
  const { statefulDomains } = services.auth;
  const { forwardAuth } = services;
  const ours = (origin: string, request: FastifyRequest): boolean =>
    sameOrigin(origin, appOrigin) ||
    statefulDomains.matches(origin) ||
    (FORWARD_AUTH_DOORS.has(request.routeOptions.url ?? '') &&
      request.method === 'POST' &&
      forwardAuth.listsOrigin(origin));
  return (request) => {
    if (request.headers['sec-fetch-site'] === 'cross-site') return true;
    const { origin } = request.headers;
    if (origin === undefined || ours(origin, request)) return false;
    if (origin === 'null' && request.headers['sec-fetch-site'] === 'same-origin') return false;
    return !sameOrigin(origin, requestOrigin(request));
  };
}

function sameOrigin(origin: string, expected: string | null): boolean {
  if (expected === null || origin.length > 2048) return false;
  try {
    return new URL(origin).origin === expected;
  } catch {
    return false;
  }
}

/** The origin this request was addressed to, serialised as a browser would; null if unusable. */
function requestOrigin(request: FastifyRequest): string | null {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return null;
  }
}
