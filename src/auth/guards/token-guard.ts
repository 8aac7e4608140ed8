import type { ResolvedToken } from '../tokens/access-tokens.ts';
import { bearerFrom } from '../tokens/token-format.ts';
import type { GuardDriver, Identity } from './guards.ts';

/**
 * The `token` driver: `Authorization: Bearer <id>|<secret>`. A token in the query string is ignored.
 * `resolve` turns the plaintext into a live token or null (auth/access-tokens.ts resolveAccessToken);
 * `observe` hears whether a presented token let its user in (gatehouse_token_authentications_total).
 */
export function tokenGuardDriver(
  resolve: (plain: string) => Promise<ResolvedToken | null>,
  observe: (ok: boolean) => void = () => {},
): GuardDriver {
  return (name, _config, provider) => {
    const authenticate = async (request: Parameters<ReturnType<GuardDriver>['authenticate']>[0]) => {
      const plain = bearerFrom(request.header('authorization'));
      if (plain === null) return null;
      const found = await resolve(plain);
      const user = found === null ? null : await provider.retrieveById(found.token.userId, found.user);
      observe(user !== null);
      return user === null ? null : ({ guard: name, user, token: found!.token } satisfies Identity);
    };
    return {
      name,
      driver: 'token',
      authenticate,
      check: async (request) => (await authenticate(request)) !== null,
    };
  };
}
