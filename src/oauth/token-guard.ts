import { ClientTokenError, type GuardDriver, type Identity } from '../auth/guards/guards.ts';
import { bearerFrom } from '../auth/tokens/token-format.ts';
import type { VerifyAccessToken } from './access-tokens.ts';

/**
 * The `oauth_token` guard driver: `Authorization: Bearer <JWT access token>` of our OpenID Connect
 * provider (access-tokens.ts). Its scopes among TOKEN_ABILITIES are the request's abilities, as a
 * Sanctum token's are; its grant is checked on every request, so a revoked one is refused at once.
 */
export function oauthTokenGuardDriver(verify: VerifyAccessToken): GuardDriver {
  return (name, _config, provider) => {
    const authenticate = async (request: Parameters<ReturnType<GuardDriver>['authenticate']>[0]) => {
      const plain = bearerFrom(request.header('authorization'));
      if (plain === null) return null;
      const access = await verify(plain);
      if (access === null) return null;
      // A client's own token (client_credentials) is valid but no user's: requireAuth answers it.
      if (access.userId === null) throw new ClientTokenError(access.clientId, access.abilities);
      const user = await provider.retrieveById(access.userId);
      return user === null ? null : ({ guard: name, user, oauth: access } satisfies Identity);
    };
    return {
      name,
      driver: 'oauth_token',
      authenticate,
      check: async (request) => (await authenticate(request)) !== null,
    };
  };
}
