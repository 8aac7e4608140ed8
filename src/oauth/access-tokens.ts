import { createLocalJWKSet, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import type { FindGrant } from './grants.ts';
import type { KeyRing } from './key-ring.ts';
import type { FindClient } from './oauth.service.ts';
import type { ScopeCatalogue } from './scopes.ts';
import { SIGNING_ALGORITHMS } from './signing-keys.ts';

/** A JWT access token that Gatehouse accepts now: whose, for which client, with which abilities. */
export interface OauthAccess {
  /** null for a client's own token (client_credentials): its `sub` is the client, never a user. */
  readonly userId: number | null;
  readonly clientId: string;
  /** null for a client's own token: it has no grant (no person consented). */
  readonly grantId: string | null;
  /** Every scope the token carries. */
  readonly scopes: readonly string[];
  /** The API abilities among them (TOKEN_ABILITIES), as a Sanctum token's abilities. */
  readonly abilities: readonly string[];
  readonly jti: string;
  /** Epoch seconds. */
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** The token's audience (Gatehouse) and issuer, for introspection. */
  readonly audience: string;
}

export interface AccessTokenDeps {
  readonly keyRing: KeyRing;
  readonly findGrant: FindGrant;
  readonly findClient: FindClient;
  readonly issuer: string;
  readonly audience: string;
  readonly scopes: ScopeCatalogue;
}

/** The private claim naming a token's grant (provider-config.ts extraTokenClaims). */
export const GRANT_CLAIM = 'gid';

/** Three base64url parts: what a JWS compact serialisation looks like (a Sanctum token never does). */
const JWT_SHAPE = /^[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}$/;

export function looksLikeJwt(value: string): boolean {
  return value.length < 8192 && JWT_SHAPE.test(value);
}

/**
 * Verifies an RFC 9068 access token of ours: signature by one of our published keys, `typ: at+jwt`,
 * our issuer and audience, not expired — and then its grant (for a client's own token, its client),
 * which is what makes revocation immediate: a token whose grant is gone (revoked, its code replayed, its client deleted, its session
 * ended) is refused on the next request although its signature and `exp` are still good. Null for
 * anything else.
 */
export function accessTokenVerifier(deps: AccessTokenDeps) {
  let jwks: { version: string; get: ReturnType<typeof createLocalJWKSet> } | null = null;
  const keysFor = (set: { version: string; publicJwks: readonly object[] }) => {
    if (jwks?.version !== set.version) {
      jwks = { version: set.version, get: createLocalJWKSet({ keys: set.publicJwks as never }) };
    }
    return jwks.get;
  };
  const options = {
    issuer: deps.issuer,
    audience: deps.audience,
    typ: 'at+jwt',
    algorithms: [...SIGNING_ALGORITHMS],
    requiredClaims: ['sub', 'client_id', 'jti', 'exp', 'iat'],
  };

  /**
   * Payloads whose signature and claims were verified, by token, for the current key set, until they
   * expire: an RS256 verification is most of what a request with a JWT access token costs (see
   * docs/contributing/benchmarks.md), and the same token comes back on every request of its app.
   * Only verified tokens get in (a forger cannot fill it) and at most VERIFIED_MAX of them; a new key
   * set (rotation) empties it. The grant is still checked on every request: revocation stays immediate.
   * Filed under the token's last 43 characters (part of its signature) and found only by the whole
   * token, compared in full: hashing a fresh 900-character key took a microsecond a request.
   */
  const VERIFIED_MAX = 10_000;
  const api = new Set(deps.scopes.api);
  const verified = new Map<string, { readonly token: string; readonly payload: JWTPayload }>();
  const slot = (token: string) => token.slice(-43);
  let verifiedFor = '';

  async function verify(token: string): Promise<JWTPayload | null> {
    const set = await deps.keyRing.current();
    if (set.version !== verifiedFor) {
      verified.clear();
      verifiedFor = set.version;
    }
    const known = verified.get(slot(token));
    if (known !== undefined && known.token === token) {
      if ((known.payload.exp ?? 0) > Date.now() / 1000) return known.payload;
      verified.delete(slot(token));
    }
    // Only what looks like a JWT is verified (and so cached); a token found above had that shape.
    if (!looksLikeJwt(token)) return null;
    const payload = await verifySignature(token, set);
    if (payload !== null) {
      if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
      verified.set(slot(token), { token, payload });
    }
    return payload;
  }

  async function verifySignature(
    token: string,
    set: Awaited<ReturnType<KeyRing['current']>>,
  ): Promise<JWTPayload | null> {
    try {
      return (await jwtVerify(token, keysFor(set), options)).payload;
    } catch (error) {
      // Signed by a key this instance has not loaded yet (another instance rotated a moment ago).
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) return null;
      const fresh = await deps.keyRing.refresh();
      if (fresh.version === set.version) return null;
      return jwtVerify(token, keysFor(fresh), options).then(
        (result) => result.payload,
        () => null,
      );
    }
  }

  return async (token: string): Promise<OauthAccess | null> => {
    if (token.length >= 8192) return null;
    const payload = await verify(token);
    if (payload === null) return null;
    const grantId = payload[GRANT_CLAIM];
    const clientId = payload['client_id'];
    const sub = payload.sub ?? '';
    if (typeof clientId !== 'string') return null;
    if (grantId === undefined && sub === clientId) {
      if (!(await clientTokenAlive(payload, clientId))) return null;
    } else {
      if (typeof grantId !== 'string' || !/^[1-9][0-9]{0,15}$/.test(sub)) return null;
      const grant = await deps.findGrant(grantId);
      if (grant === null || grant.clientId !== clientId || grant.accountId !== sub) return null;
    }
    const scopes = typeof payload['scope'] === 'string' ? payload['scope'].split(' ').filter(Boolean) : [];
    return {
      userId: typeof grantId === 'string' ? Number(sub) : null,
      clientId,
      grantId: typeof grantId === 'string' ? grantId : null,
      scopes,
      abilities: scopes.filter((scope) => api.has(scope)),
      jti: String(payload.jti),
      issuedAt: payload.iat ?? 0,
      expiresAt: payload.exp ?? 0,
      audience: deps.audience,
    };
  };

  /**
   * A client's own token (client_credentials) has no grant to revoke: it stands while its client does,
   * still holds that grant, and has not rotated its secret since the token was issued — deleting the
   * client or rotating its secret refuses its tokens at once (docs/guides/oidc-provider.md "Client
   * credentials").
   */
  async function clientTokenAlive(payload: JWTPayload, clientId: string): Promise<boolean> {
    const client = await deps.findClient(clientId);
    if (client === null || !client.grantTypes.includes('client_credentials')) return false;
    // `iat` has whole seconds: a token of the rotation's own second stands (one issued with the new
    // secret right after it must, and the old secret could not have asked in between for long).
    const rotatedAt = client.secretRotatedAt;
    return rotatedAt === null || (payload.iat ?? 0) >= Math.floor(rotatedAt / 1000);
  }
}

export type VerifyAccessToken = ReturnType<typeof accessTokenVerifier>;
