import type { Config } from '../config.ts';
import type { AuthConfig } from './guards.ts';

/**
 * Guards and user providers (Laravel's config/auth.php). A new guard is a new entry here plus,
 * if it needs one, a provider; `buildApp` accepts a replacement config.
 *
 * Session guards carry their browser settings: the web and admin guards use different cookies, so
 * a web session never opens the panel and an admin session never opens /dashboard.
 */
export function authConfig(config: Config): AuthConfig {
  return {
    guards: {
      web: {
        driver: 'session',
        provider: 'users',
        cookie: 'gatehouse_session',
        rememberCookie: 'gatehouse_remember',
        xsrfCookie: 'XSRF-TOKEN',
        loginPath: '/login',
        idleMinutes: config.sessionLifetimeMinutes,
      },
      admin: {
        driver: 'session',
        provider: 'admins',
        cookie: 'gatehouse_admin_session',
        rememberCookie: 'gatehouse_admin_remember',
        loginPath: '/admin/login',
        idleMinutes: config.adminSessionLifetimeMinutes,
      },
      api: { driver: 'token', provider: 'users' },
      // The API's guard (Laravel's auth:sanctum): the web session for stateful front ends
      // (SANCTUM_STATEFUL_DOMAINS), else a bearer token — see auth/sanctum-guard.ts.
      sanctum: { driver: 'sanctum', provider: 'users', session: 'web' },
    },
    providers: {
      users: { driver: 'database' },
      admins: { driver: 'database', allow: 'canAccessPanel' },
    },
  };
}
