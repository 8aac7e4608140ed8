import type { Config } from '../config.ts';
import type { AuthConfig } from './guards/guards.ts';

/**
 * Guards and user providers (Laravel's config/auth.php): the one answer to "how is X protected?".
 * A new guard is a new entry here plus, if it needs one, a provider (ServiceOverrides accepts a
 * replacement config and added drivers).
 *
 * - `web` owns every page (`pathPrefix: '/'`): its session cookie, remember-me cookie and login page.
 * - `admin` owns `/admin`: other cookies, a shorter idle lifetime and the `admins` provider, so a web
 *   session never opens the panel and an admin session never opens /dashboard. A panel session whose
 *   user loses access gets 403 and is ended (`refusedMessage`), not a login form. It has no
 *   remember-me cookie (docs/security.md): a 30-day cookie would defeat the panel's 30-minute idle
 *   limit, so a panel login ignores `remember`.
 * - `sanctum` owns `/api` (Laravel's auth:sanctum): the `web` session for stateful front ends
 *   (SANCTUM_STATEFUL_DOMAINS), else a bearer token through `api` — see auth/sanctum-guard.ts.
 *
 * A state-changing request must carry the CSRF token of the session guard owning its path (for
 * `/api`, only when it comes from a stateful front end): http/plugins/csrf.ts asks this config.
 */
export function authConfig(config: Config): AuthConfig {
  return {
    guards: {
      web: {
        driver: 'session',
        provider: 'users',
        pathPrefix: '/',
        cookie: 'gatehouse_session',
        rememberCookie: 'gatehouse_remember',
        xsrfCookie: 'XSRF-TOKEN',
        loginPath: '/login',
        idleMinutes: config.sessionLifetimeMinutes,
      },
      admin: {
        driver: 'session',
        provider: 'admins',
        pathPrefix: '/admin',
        cookie: 'gatehouse_admin_session',
        loginPath: '/admin/login',
        idleMinutes: config.adminSessionLifetimeMinutes,
        refusedMessage: 'admin.access_withdrawn',
      },
      api: { driver: 'token', provider: 'users' },
      sanctum: { driver: 'sanctum', provider: 'users', session: 'web', pathPrefix: '/api' },
      // JWT access tokens of the OpenID Connect provider (src/oauth/token-guard.ts).
      oauth: { driver: 'oauth_token', provider: 'users' },
    },
    providers: {
      users: { driver: 'database' },
      admins: { driver: 'database', allow: 'canAccessPanel' },
    },
  };
}

/**
 * The guards an API route asks, in order (`requireAuth(API_GUARDS)`): `sanctum` reads the web
 * session cookie for stateful front ends and otherwise the bearer token.
 */
export const API_GUARDS: readonly string[] = ['sanctum'];

/**
 * The guards of the API routes an OpenID Connect client may call with its access token (GET /api/user,
 * the posts): `API_GUARDS`, then `oauth`. Token management (/api/tokens) is the user's own, not a
 * client's: it keeps API_GUARDS alone.
 */
export const API_GUARDS_WITH_OAUTH: readonly string[] = [...API_GUARDS, 'oauth'];
