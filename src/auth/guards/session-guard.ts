import type { GuardDriver, Identity } from './guards.ts';

/**
 * The `session` driver: the request's session for this guard (loaded and remember-me-restored by the
 * HTTP layer) names a user, and the guard's provider must still accept that user (not disabled, and
 * for the admin guard, still allowed into the panel).
 */
export const sessionGuardDriver: GuardDriver = (name, _config, provider) => {
  const authenticate = async (request: Parameters<ReturnType<GuardDriver>['authenticate']>[0]) => {
    const session = await request.session(name);
    if (!session?.userId) return null;
    const user = await provider.retrieveById(session.userId, session.user);
    return user === null ? null : ({ guard: name, user } satisfies Identity);
  };
  return {
    name,
    driver: 'session',
    authenticate,
    check: async (request) => (await authenticate(request)) !== null,
  };
};
