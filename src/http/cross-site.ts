import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';

/**
 * Whether a state-changing browser request comes from another site (CONTRACT §16 "Cross-site
 * requests"), judged by what the browser itself says — headers a page's script cannot set:
 *
 * - `Sec-Fetch-Site: cross-site`: the browser states it outright;
 * - an `Origin` that is none of ours: APP_URL's origin, a SANCTUM_STATEFUL_DOMAINS front end or a
 *   FORWARD_AUTH_DOMAINS host. `Origin: null` (sandboxed frames, privacy-hiding redirects) is not
 *   ours either. No Origin at all (older browsers, same-origin GET-turned-POST by some clients) is
 *   left to the CSRF token alone.
 *
 * A second wall behind the CSRF token, not instead of it: a token leaked into another site (a log,
 * a cached page) is still useless from there.
 */
export function crossSiteChecker(services: Services): (request: FastifyRequest) => boolean {
  const appOrigin = new URL(services.config.appUrl).origin;
  const { statefulDomains } = services.auth;
  const { forwardAuth } = services;
  const ours = (origin: string): boolean =>
    sameOrigin(origin, appOrigin) || statefulDomains.matches(origin) || forwardAuth.listsOrigin(origin);
  return (request) => {
    if (request.headers['sec-fetch-site'] === 'cross-site') return true;
    const { origin } = request.headers;
    return origin !== undefined && !ours(origin);
  };
}

function sameOrigin(origin: string, appOrigin: string): boolean {
  if (origin.length > 2048) return false;
  try {
    return new URL(origin).origin === appOrigin;
  } catch {
    return false;
  }
}
