import type { Adapter, Configuration, KoaContextWithOIDC, default as Provider } from 'oidc-provider';
import type { AuditContext } from '../audit/audit.ts';
import type { RateLimiter } from '../auth/throttle/rate-limiter.ts';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/connection.ts';
import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { FindMemberships } from '../orgs/memberships.ts';
import type { FindUser } from '../users/user-provider.ts';
import { accessTokenVerifier, GRANT_CLAIM } from './access-tokens.ts';
import { accountFinder } from './accounts.ts';
import { jwtAccessTokens, registeredClients } from './adapters.ts';
import { claimSources } from './claims.ts';
import { createClients, type OauthClient } from './clients.ts';
import { createConsents, grantScopes } from './consents.ts';
import { devicePolls } from './device-polls.ts';
import { grantLoader } from './grant-loader.ts';
import type { FindGrant } from './grants.ts';
import { revokeGrant } from './grants.ts';
import { introspectionReader } from './introspection.ts';
import { KeyRing } from './key-ring.ts';
import type { OidcLibrary } from './library.ts';
import { queueLogoutNotices, type SessionAuthorizations } from './logout-notices.ts';
import { LogoutWorker } from './logout-worker.ts';
import type { OauthModelRow } from './models.table.ts';
import type { ProviderPages, ProviderPolicy } from './provider-config.ts';
import { type ProviderEvents, ProviderHost } from './provider-host.ts';
import { followGatehouseSession, type GatehouseSession } from './provider-sessions.ts';
import { recordRefreshTokenReuse } from './replays.ts';
import { scopeCatalogue } from './scopes.ts';
import { signingKeys } from './signing-keys.ts';
import { createStorageAdapter } from './storage-adapter.ts';
import { userinfoReader } from './userinfo.ts';

/** A client by id, null when there is none. The composition root may cache answers. */
export type FindClient = (clientId: string) => Promise<OauthClient | null> | OauthClient | null;

export interface OauthDeps {
  readonly config: Config;
  readonly db: Db;
  readonly dialect: Dialect;
  readonly clock: Clock;
  readonly findUser: FindUser;
  /** A user's organizations: the `orgs` scope's claim (claims.ts). */
  readonly findMemberships: FindMemberships;
  readonly findGrant: FindGrant;
  readonly findClient: FindClient;
  /** The shared rate-limit store: the pace of device polls (device-polls.ts). */
  readonly limiter: RateLimiter;
  /** The origins of every registered redirect URI (client-records.ts redirectOriginsFinder). */
  readonly findRedirectOrigins: (all: '') => Promise<readonly string[]>;
}

/** What the HTTP layer supplies when it mounts the provider: its pages, its per-request facts. */
export interface ProviderMount extends ProviderEvents {
  /** The oidc-provider module (library.ts). */
  readonly library: OidcLibrary;
  readonly pages: ProviderPages;
  /** The key of the Gatehouse web session of the request being handled, if any. */
  readonly sessionBinding: () => string | null;
  /** True while the token endpoint answers a device's poll (device-polls.ts). */
  readonly isDevicePoll: () => boolean;
  /** A code or refresh token won by a concurrent request (storage-adapter.ts). */
  readonly onRaceLost: (row: OauthModelRow) => Promise<void>;
  /** Who is acting in a provider request, for the audit trail. */
  readonly audit: (ctx: KoaContextWithOIDC) => AuditContext;
}

/** What an interaction asked for, as the consent's Allow needs it (the library's Interaction). */
export interface ConsentRequest {
  readonly grantId?: string | undefined;
  readonly params: { readonly client_id?: unknown; readonly scope?: unknown };
}

/**
 * The OpenID Connect provider's domain (docs/guides/oidc-provider.md): clients, signing keys, the
 * storage oidc-provider runs on and the policy it runs with, the JWT access token check. Built once by
 * services.ts; the HTTP layer (http/oauth/) mounts the provider with `host()`.
 */
export function createOauth(deps: OauthDeps) {
  const { config, db, clock } = deps;
  const scopes = scopeCatalogue(config.tokenAbilities);
  const sources = claimSources(deps.findMemberships);
  const audience = config.oidc.issuer;
  const keys = signingKeys({
    db,
    appKey: config.appKey,
    clock,
    // A retired key stays published as long as a refresh token can live: every ID token a relying
    // party still holds (and may send back as a logout hint) then verifies.
    retentionMs: config.oidc.refreshTokenTtlSeconds * 1000,
  });
  const keyRing = new KeyRing(keys, clock);
  const clients = createClients({ db, scopes });
  const consents = createConsents({ db, scopes, audience });
  const sessionTtlSeconds =
    Math.max(config.sessionAbsoluteLifetimeMinutes, config.rememberLifetimeMinutes) * 60;
  const verifyAccessToken = accessTokenVerifier({
    keyRing,
    findGrant: deps.findGrant,
    findClient: deps.findClient,
    issuer: config.oidc.issuer,
    audience,
    scopes,
  });

  /** The storage of every model, and the registered clients for the `Client` model. */
  const adapter =
    (mount: ProviderMount) =>
    (name: string): Adapter => {
      const stored = createStorageAdapter(
        {
          db,
          clock,
          sessionBinding: mount.sessionBinding,
          onRaceLost: mount.onRaceLost,
          invalidGrant: (description) => new mount.library.errors.InvalidGrant(description),
        },
        name,
      );
      if (name === 'AccessToken') return jwtAccessTokens(stored, verifyAccessToken);
      if (name === 'DeviceCode') {
        const slowDown = () => new mount.library.errors.SlowDown();
        return devicePolls(stored, { limiter: deps.limiter, isPoll: mount.isDevicePoll, slowDown });
      }
      return name === 'Client' ? registeredClients(deps.findClient) : stored;
    };

  const extraTokenClaims: NonNullable<Configuration['extraTokenClaims']> = (_ctx, token) =>
    token.kind === 'AccessToken' && typeof token.grantId === 'string'
      ? { [GRANT_CLAIM]: token.grantId }
      : undefined;

  const policy = (mount: ProviderMount): ProviderPolicy => ({
    oidc: config.oidc,
    appKey: config.appKey,
    // The provider's cookies live on the issuer's host: secure when it is https.
    secureCookies: config.oidc.issuer.startsWith('https:'),
    scopes,
    audience,
    sessionTtlSeconds,
    adapter: adapter(mount),
    findAccount: accountFinder(deps.findUser, sources),
    loadExistingGrant: grantLoader({ consents, scopes, audience, audit: mount.audit }),
    extraTokenClaims,
    pages: mount.pages,
  });

  /**
   * RFC 7662 for one of our JWT access tokens (the library introspects only what it stores): active
   * when it verifies, its grant is alive and the asking client is its own (or, `anyClient`, a
   * resource server: client-metadata.ts isResourceServer).
   */
  async function introspectJwt(
    token: string,
    clientId: string,
    anyClient = false,
  ): Promise<Record<string, unknown>> {
    const access = await verifyAccessToken(token);
    if (access === null || (access.clientId !== clientId && !anyClient)) return { active: false };
    return {
      active: true,
      sub: access.userId === null ? access.clientId : String(access.userId),
      client_id: access.clientId,
      scope: access.scopes.join(' '),
      exp: access.expiresAt,
      iat: access.issuedAt,
      iss: config.oidc.issuer,
      aud: access.audience,
      jti: access.jti,
      token_type: 'Bearer',
    };
  }

  return {
    scopes,
    audience,
    clients,
    keys,
    keyRing,
    consents,
    /**
     * The consent screen's Allow: the interaction's grant (or a new one) gets the requested scopes,
     * and the consent is remembered for the next sessions. The grant's id, for the interaction result.
     */
    async allow(
      provider: Provider,
      request: ConsentRequest,
      userId: number,
      audit: AuditContext,
    ): Promise<string> {
      const clientId = String(request.params.client_id ?? '');
      const requested = String(request.params.scope ?? '')
        .split(' ')
        .filter(Boolean);
      const existing = request.grantId ? await provider.Grant.find(request.grantId) : undefined;
      const grant = existing ?? new provider.Grant({ accountId: String(userId), clientId });
      grantScopes(grant, requested, scopes, audience);
      const grantId = await grant.save();
      await consents.remember(userId, clientId, requested, audit);
      return grantId;
    },
    /** The provider session a browser may present, given its Gatehouse session (provider-sessions.ts). */
    followSession: (presentedId: string | null, gatehouse: GatehouseSession | null) =>
      followGatehouseSession({ db, clock, ttlSeconds: sessionTtlSeconds }, presentedId, gatehouse),
    introspectJwt,
    /** Introspection answered before the library, or null for the library (introspection.ts). */
    introspection: introspectionReader({ findClient: deps.findClient, introspectJwt }),
    /**
     * RFC 7009 for one of our JWT access tokens: a JWT cannot be revoked alone, so its grant is (§2.1
     * allows revoking related tokens) — the client's refresh token and every access token of that
     * authorization stop working at once. Another client's token, or no token of ours: nothing happens.
     */
    async revokeJwt(token: string, clientId: string): Promise<void> {
      const access = await verifyAccessToken(token);
      if (access?.grantId && access.clientId === clientId) await revokeGrant(db, access.grantId);
    },
    /** The origins browser apps may call the provider from (http/plugins/cors.ts oauthCors). */
    redirectOrigins: async (): Promise<ReadonlySet<string>> => new Set(await deps.findRedirectOrigins('')),
    /** The JWT access token check of Gatehouse's own API (the `oauth` guard). */
    verifyAccessToken,
    /** Userinfo for a bearer JWT of ours, or null for the library to answer (userinfo.ts). */
    userinfo: userinfoReader({
      verify: verifyAccessToken,
      findClient: deps.findClient,
      findUser: deps.findUser,
      claimSources: sources,
    }),
    /** A rotated refresh token presented again: its grant is gone; the audit trail hears of it. */
    refreshTokenReused: (reuse: { accountId: string | null; clientId: string | null }, audit: AuditContext) =>
      recordRefreshTokenReuse(db, reuse, audit),
    /** Delivers back-channel logout notices (logout-worker.ts); server.ts starts it. */
    logouts: new LogoutWorker({
      db,
      dialect: deps.dialect,
      clock,
      keyRing,
      findClient: deps.findClient,
      issuer: config.oidc.issuer,
    }),
    /** An RP-initiated logout ended this provider session: its clients hear of it (logout-notices.ts). */
    queueLogoutNotices: (accountId: string, authorizations: SessionAuthorizations) =>
      queueLogoutNotices(db, accountId, authorizations, clock.now()),
    /** The provider for the current keys, built on first use with the HTTP layer's pages and hooks. */
    host: (mount: ProviderMount) => new ProviderHost(mount.library, keyRing, policy(mount), mount),
  };
}

export type Oauth = ReturnType<typeof createOauth>;
