import type { Adapter, AdapterPayload } from 'oidc-provider';
import { looksLikeJwt, type VerifyAccessToken } from './access-tokens.ts';
import { clientMetadata } from './client-metadata.ts';
import type { FindClient } from './oauth.service.ts';

/**
 * The `Client` model's storage: the clients registered with the CLI or the panel (oauth_clients), read
 * only — dynamic registration is off, so the library never writes one.
 */
export function registeredClients(findClient: FindClient): Adapter {
  const refuse = async () => {
    throw new Error('clients are registered with the CLI or the panel');
  };
  return {
    async find(clientId) {
      const client = await findClient(clientId);
      return client === null ? undefined : clientMetadata(client);
    },
    upsert: refuse,
    findByUid: refuse,
    findByUserCode: refuse,
    consume: refuse,
    destroy: refuse,
    revokeByGrantId: refuse,
  };
}

/**
 * The `AccessToken` model's storage, which also finds our JWT access tokens. The library stores none of
 * them (a JWT is self-contained) and its userinfo endpoint looks tokens up here: a JWT that verifies —
 * our signature, issuer and audience, not expired, its grant alive (access-tokens.ts) — is found as
 * the token it stands for. Without its `aud`: the library keeps userinfo to tokens without an audience,
 * and ours name Gatehouse itself, whose userinfo this is (docs/guides/oidc-provider.md "Access tokens").
 * A revoked one is not found, so userinfo answers 401 invalid_token at once.
 */
export function jwtAccessTokens(stored: Adapter, verify: VerifyAccessToken): Adapter {
  return {
    ...stored,
    async find(id) {
      if (!looksLikeJwt(id)) return stored.find(id);
      const access = await verify(id);
      // A client's own token has no person behind it: userinfo has nothing to say about it.
      if (access === null || access.userId === null) return undefined;
      const payload: AdapterPayload = {
        jti: id,
        kind: 'AccessToken',
        iat: access.issuedAt,
        exp: access.expiresAt,
        accountId: String(access.userId),
        clientId: access.clientId,
        grantId: access.grantId ?? undefined,
        scope: access.scopes.join(' '),
      };
      return payload;
    },
  };
}
