import type { AccessToken } from './access-tokens.ts';
import type { GuardDriver, Identity } from './guards.ts';
import { bearerFrom } from './token-format.ts';

/**
 * The `token` driver: `Authorization: Bearer <id>|<secret>`. A token in the query string is ignored.
 * `resolve` turns the plaintext into a live token or null (auth/access-tokens.ts resolveAccessToken).
 */
export function tokenGuardDriver(resolve: (plain: string) => Promise<AccessToken | null>): GuardDriver {
  return (name, _config, provider) => {
    const authenticate = async (request: Parameters<ReturnType<GuardDriver>['authenticate']>[0]) => {
      const plain = bearerFrom(request.header('authorization'));
      if (plain === null) return null;
      const token = await resolve(plain);
      if (token === null) return null;
      const user = await provider.retrieveById(token.userId);
      return user === null ? null : ({ guard: name, user, token } satisfies Identity);
    };
    return {
      name,
      driver: 'token',
      authenticate,
      check: async (request) => (await authenticate(request)) !== null,
    };
  };
}
