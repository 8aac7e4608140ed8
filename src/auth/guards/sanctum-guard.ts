import { type AuthRequest, type GuardDriver, type Identity, isSanctumGuard } from './guards.ts';
import type { StatefulDomains } from './stateful-domains.ts';

/**
 * The `sanctum` driver (Laravel Sanctum's Guard): a request from a stateful front end (Origin, or
 * else Referer, listed in SANCTUM_STATEFUL_DOMAINS) is first authenticated by the web session cookie;
 * otherwise — and as a fallback — by a bearer token.
 *
 * Config (SanctumGuardConfig): `session` names the session guard whose cookie counts. The session path
 * yields an Identity without a token, which holds every ability: the user is acting in our own
 * front end, not through a scoped credential.
 *
 * Requests from any other origin never read the session cookie, so a cookie a browser attaches
 * to a cross-site request is worthless here. The XSRF header that state-changing stateful requests
 * must carry is checked in the HTTP layer (plugins/csrf.ts) with the same `StatefulDomains`.
 */
export function sanctumGuardDriver(deps: {
  statefulDomains: StatefulDomains;
  session: GuardDriver;
  token: GuardDriver;
}): GuardDriver {
  return (name, config, provider) => {
    if (!isSanctumGuard(config)) throw new Error(`Guard "${name}" is not a sanctum guard`);
    const sessionGuard = deps.session(config.session, config, provider);
    const tokenGuard = deps.token(name, config, provider);
    const authenticate = async (request: AuthRequest): Promise<Identity | null> => {
      if (isStateful(deps.statefulDomains, request)) {
        const identity = await sessionGuard.authenticate(request);
        if (identity) return { guard: name, user: identity.user };
      }
      return tokenGuard.authenticate(request);
    };
    return {
      name,
      driver: 'sanctum',
      authenticate,
      check: async (request) => (await authenticate(request)) !== null,
    };
  };
}

export function isStateful(domains: StatefulDomains, request: AuthRequest): boolean {
  const origin = request.header('origin');
  const referer = request.header('referer');
  // Most API clients send neither header (a server, a script): nothing to match.
  return (origin !== undefined || referer !== undefined) && domains.fromFrontend(origin, referer);
}
