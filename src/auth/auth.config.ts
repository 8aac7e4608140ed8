import type { AuthConfig } from './guards.ts';

/**
 * Guards and user providers (Laravel's config/auth.php). A new guard is a new entry here plus,
 * if it needs one, a provider; `buildApp` accepts a replacement config.
 */
export const defaultAuthConfig: AuthConfig = {
  guards: {
    api: { driver: 'token', provider: 'users' },
  },
  providers: {
    users: { driver: 'database' },
    admins: { driver: 'database', allow: 'canAccessPanel' },
  },
};
