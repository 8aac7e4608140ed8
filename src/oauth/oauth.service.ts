import type { Adapter, Configuration } from 'oidc-provider';
import type { AuditContext } from '../audit/audit.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { FindUser } from '../users/user-provider.ts';
import { accessTokenVerifier, GRANT_CLAIM } from './access-tokens.ts';
import { accountFinder } from './accounts.ts';
import { clientMetadata } from './client-metadata.ts';
import { createClients, type OauthClient } from './clients.ts';
import type { FindGrant } from './grants.ts';
import { KeyRing } from './key-ring.ts';
import type { OidcLibrary } from './library.ts';
import type { OauthModelRow } from './models.table.ts';
import type { ProviderPages, ProviderPolicy } from './provider-config.ts';
import { type ProviderEvents, ProviderHost } from './provider-host.ts';
import { recordRefreshTokenReuse } from './replays.ts';
import { scopeCatalogue } from './scopes.ts';
import { signingKeys } from './signing-keys.ts';
import { createStorageAdapter } from './storage-adapter.ts';

/** A client by id, null when there is none. The composition root may cache answers. */
export type FindClient = (clientId: string) => Promise<OauthClient | null> | OauthClient | null;

export interface OauthDeps {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly findUser: FindUser;
  readonly findGrant: FindGrant;
  readonly findClient: FindClient;
}

/** What the HTTP layer supplies when it mounts the provider: its pages, its per-request facts. */
export interface ProviderMount extends ProviderEvents {
  /** The oidc-provider module (library.ts). */
  readonly library: OidcLibrary;
  readonly pages: ProviderPages;
  /** The key of the Gatehouse web session of the request being handled, if any. */
  readonly sessionBinding: () => string | null;
  /** A code or refresh token won by a concurrent request (storage-adapter.ts). */
  readonly onRaceLost: (row: OauthModelRow) => Promise<void>;
}

/**
 * The OpenID Connect provider's domain (docs/guides/oidc-provider.md): clients, signing keys, the
 * storage oidc-provider runs on and the policy it runs with, the JWT access token check. Built once by
 * services.ts; the HTTP layer (http/oauth/) mounts the provider with `host()`.
 */
export function createOauth(deps: OauthDeps) {
  const { config, db, clock } = deps;
  const scopes = scopeCatalogue(config.tokenAbilities);
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
  const verifyAccessToken = accessTokenVerifier({
    keyRing,
    findGrant: deps.findGrant,
    issuer: config.oidc.issuer,
    audience,
    scopes,
  });

  /** The storage of every model, and the registered clients for the `Client` model. */
  const adapter =
    (mount: ProviderMount) =>
    (name: string): Adapter => {
      if (name !== 'Client') {
        return createStorageAdapter(
          {
            db,
            clock,
            sessionBinding: mount.sessionBinding,
            onRaceLost: mount.onRaceLost,
            invalidGrant: (description) => new mount.library.errors.InvalidGrant(description),
          },
          name,
        );
      }
      const refuse = async () => {
        throw new Error('clients are registered with the CLI or the panel');
      };
      return {
        async find(clientId) {
          const client = await deps.findClient(clientId);
          return client === null ? undefined : clientMetadata(client);
        },
        upsert: refuse,
        findByUid: refuse,
        findByUserCode: refuse,
        consume: refuse,
        destroy: refuse,
        revokeByGrantId: refuse,
      };
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
    sessionTtlSeconds: Math.max(config.sessionAbsoluteLifetimeMinutes, config.rememberLifetimeMinutes) * 60,
    adapter: adapter(mount),
    findAccount: accountFinder(deps.findUser),
    loadExistingGrant: defaultGrantLoader,
    extraTokenClaims,
    pages: mount.pages,
  });

  return {
    scopes,
    audience,
    clients,
    keys,
    keyRing,
    /** The JWT access token check of Gatehouse's own API (the `oauth` guard). */
    verifyAccessToken,
    /** A rotated refresh token presented again: its grant is gone; the audit trail hears of it. */
    refreshTokenReused: (reuse: { accountId: string | null; clientId: string | null }, audit: AuditContext) =>
      recordRefreshTokenReuse(db, reuse, audit),
    /** The provider for the current keys, built on first use with the HTTP layer's pages and hooks. */
    host: (mount: ProviderMount) => new ProviderHost(mount.library, keyRing, policy(mount), mount),
  };
}

export type Oauth = ReturnType<typeof createOauth>;

/** The library's own rule until consents arrive: the grant this session already holds for the client. */
const defaultGrantLoader: NonNullable<Configuration['loadExistingGrant']> = async (ctx) => {
  const grantId =
    ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(ctx.oidc.client!.clientId);
  return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
};
