import { importJWK, SignJWT } from 'jose';
import { randomToken } from '../lib/crypto.ts';
import type { KeySet } from './signing-keys.ts';

/** The event a logout token carries (OpenID Connect Back-Channel Logout 1.0 §2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface LogoutTokenClaims {
  readonly issuer: string;
  readonly clientId: string;
  readonly sub: string;
  readonly sid: string;
  readonly now: number;
}

/**
 * A logout token (Back-Channel Logout 1.0 §2.4; docs/guides/oidc-provider.md "Logout"): signed at
 * delivery with the current RS256 key (the ID tokens' algorithm), `typ: logout+jwt`, `iss`, `aud` (the
 * client), `iat`, `exp` (2 minutes), `jti`, `sub`, `sid` and the `events` claim; never a `nonce`.
 */
export async function signLogoutToken(keys: KeySet, claims: LogoutTokenClaims): Promise<string> {
  const jwk = keys.privateJwks.find((key) => key.alg === 'RS256');
  if (jwk === undefined) throw new Error('no RS256 signing key');
  const iat = Math.floor(claims.now / 1000);
  return new SignJWT({ sub: claims.sub, sid: claims.sid, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
    .setProtectedHeader({ alg: 'RS256', kid: jwk.kid!, typ: 'logout+jwt' })
    .setIssuer(claims.issuer)
    .setAudience(claims.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 120)
    .setJti(randomToken(16))
    .sign(await importJWK(jwk, 'RS256'));
}
