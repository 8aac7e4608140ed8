import { createHmac } from 'node:crypto';
import type { JWK } from 'jose';
import type {
  Adapter,
  Client,
  Configuration,
  ErrorOut,
  FindAccount,
  KoaContextWithOIDC,
} from 'oidc-provider';
import type { OidcConfig } from '../config/oidc.ts';
import { SUPPORTED_LOCALES } from '../i18n/locales.ts';
import { claimsByScope } from './claims.ts';
import { isResourceServer } from './client-metadata.ts';
import type { OidcLibrary } from './library.ts';
import { type ScopeCatalogue, scopesOutside } from './scopes.ts';
import { SIGNING_ALGORITHMS } from './signing-keys.ts';

/** Where the provider's routes live; discovery publishes them (docs/guides/oidc-provider.md). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  userinfo: '/oauth/userinfo',
  jwks: '/oauth/jwks',
  introspection: '/oauth/introspect',
  revocation: '/oauth/revoke',
  end_session: '/oauth/logout',
  // Issue-30 features, fixed now so that their paths never move: device flow, registration.
  device_authorization: '/oauth/device/auth',
  code_verification: '/device',
  registration: '/oauth/register',
} as const;

/** How long a device code lives (RFC 8628 `expires_in`). */
export const DEVICE_CODE_TTL_SECONDS = 600;

/** Where oidc-provider sends a browser that must log in or consent (http/oauth/interaction routes). */
export const INTERACTION_PATH = '/oauth/interaction';

/** Pages the provider shows itself, rendered by the HTTP layer in the visitor's language. */
export interface ProviderPages {
  renderError(ctx: KoaContextWithOIDC, out: ErrorOut, error: Error): Promise<void>;
  logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void>;
  postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void>;
  /** The device flow's pages (RFC 8628 §3.3): type the code, confirm it, done. */
  deviceCodeInput(ctx: KoaContextWithOIDC, form: string, out?: ErrorOut, error?: Error): Promise<void>;
  deviceCodeConfirm(
    ctx: KoaContextWithOIDC,
    form: string,
    client: Client,
    info: unknown,
    code: string,
  ): Promise<void>;
  deviceSuccess(ctx: KoaContextWithOIDC): Promise<void>;
}

export interface ProviderPolicy {
  readonly oidc: OidcConfig;
  readonly appKey: Buffer;
  readonly secureCookies: boolean;
  readonly scopes: ScopeCatalogue;
  /** The audience of access tokens: Gatehouse itself (its API and userinfo). */
  readonly audience: string;
  /** How long a session may live: the provider session follows the Gatehouse one anyway. */
  readonly sessionTtlSeconds: number;
  readonly adapter: (name: string) => Adapter;
  readonly findAccount: FindAccount;
  readonly loadExistingGrant: NonNullable<Configuration['loadExistingGrant']>;
  readonly extraTokenClaims: NonNullable<Configuration['extraTokenClaims']>;
  readonly pages: ProviderPages;
}

/**
 * oidc-provider's configuration: every default that is not safe enough for us set explicitly, each
 * with its reason (docs/guides/oidc-provider.md "Safety settings"), and tested (test/http/oauth-*).
 */
export function providerConfiguration(
  library: OidcLibrary,
  policy: ProviderPolicy,
  keys: readonly JWK[],
): Configuration {
  const { errors } = library;
  const { oidc, scopes } = policy;
  const apiScopes = [...scopes.oidc.filter((scope) => scope !== 'offline_access'), ...scopes.api].join(' ');
  return {
    adapter: policy.adapter,
    findAccount: policy.findAccount,
    jwks: { keys: keys as Configuration['jwks'] extends { keys: infer K } | undefined ? K : never },
    routes: OAUTH_ROUTES,
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
      policy: interactionPolicy(library),
    },
    extraParams: { scope: knownScopes(library, scopes) },
    // The default cookie names say "oidc-provider"; ours are namespaced and signed with a key derived
    // from APP_KEY (the same on every instance), `secure` under an https APP_URL.
    cookies: {
      names: {
        session: 'gatehouse_oidc_session',
        interaction: 'gatehouse_oidc_interaction',
        resume: 'gatehouse_oidc_resume',
      },
      long: { httpOnly: true, sameSite: 'lax', secure: policy.secureCookies, signed: true },
      short: { httpOnly: true, sameSite: 'lax', secure: policy.secureCookies, signed: true },
      keys: [createHmac('sha256', policy.appKey).update('oidc-provider cookies').digest('base64url')],
    },
    claims: claimsByScope(),
    scopes: [...scopes.all],
    // Only the authorization code flow (OAuth 2.1): implicit and hybrid responses put tokens in URLs.
    responseTypes: ['code'],
    // PKCE with S256 for every client, confidential ones too (OAuth 2.1; Authentik CVE-2023-48228 was
    // a code redeemed without its verifier). `plain` is refused by the library whatever this says.
    pkce: { required: () => true },
    // A loopback redirect URI may change port only for native clients (client metadata); everything
    // else is compared character for character by the library. Omitting redirect_uri is not allowed.
    allowOmittingSingleRegisteredRedirectUri: false,
    // client_secret_jwt would need the secret itself (we keep a hash); private_key_jwt needs client
    // keys we do not register.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    clientDefaults: {
      grant_types: ['authorization_code'],
      id_token_signed_response_alg: 'RS256',
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    // Only asymmetric algorithms: an HMAC key would be derived from the client secret, which we do not
    // have (and must not need).
    enabledJWA: {
      idTokenSigningAlgValues: [...SIGNING_ALGORITHMS],
      userinfoSigningAlgValues: [...SIGNING_ALGORITHMS],
      introspectionSigningAlgValues: [...SIGNING_ALGORITHMS],
      authorizationSigningAlgValues: [...SIGNING_ALGORITHMS],
      requestObjectSigningAlgValues: [...SIGNING_ALGORITHMS],
      clientAuthSigningAlgValues: [...SIGNING_ALGORITHMS],
    },
    extraClientMetadata: { properties: ['gatehouse_trusted'] },
    // Refresh tokens: only with offline_access (OpenID Connect Core §11), rotated on every use;
    // reuse of a rotated one revokes the grant (the library's rule for a consumed token).
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    rotateRefreshToken: true,
    loadExistingGrant: policy.loadExistingGrant,
    extraTokenClaims: policy.extraTokenClaims,
    ttl: {
      AccessToken: oidc.accessTokenTtlSeconds,
      ClientCredentials: oidc.accessTokenTtlSeconds,
      DeviceCode: DEVICE_CODE_TTL_SECONDS,
      // Codes live 60 s (OAuth 2.1 recommends a short life; single use is the adapter's atomic consume).
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: policy.sessionTtlSeconds,
      // A grant outlives any refresh token issued from it during its session.
      Grant: oidc.refreshTokenTtlSeconds + policy.sessionTtlSeconds,
      // Absolute: a rotated token inherits what is left of its chain's lifetime, counted from the
      // first token of the chain (iiat), so rotation never extends access.
      RefreshToken: (_ctx, token) => {
        const age =
          Math.floor(Date.now() / 1000) - (token.iiat ?? token.iat ?? Math.floor(Date.now() / 1000));
        return Math.max(1, oidc.refreshTokenTtlSeconds - age);
      },
    },
    features: {
      devInteractions: { enabled: false },
      // RFC 9068 JWT access tokens for one resource: Gatehouse itself (its API and userinfo).
      resourceIndicators: {
        enabled: true,
        defaultResource: () => policy.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => {
          if (resource !== policy.audience) throw new errors.InvalidTarget();
          // A client's own token (client_credentials) carries API abilities only, those of its
          // registered list, signed with ES256 — cheaper to sign and verify than RS256, and every
          // service verifying it offline with a JOSE library accepts it.
          if (ctx.oidc.params?.['grant_type'] === 'client_credentials') {
            // The library refuses only scopes it knows; one it does not would be dropped silently.
            // Every scope asked must be in the client's list; no token is built yet.
            const unregistered = scopesOutside(ctx.oidc.params['scope'], client.scope);
            if (unregistered !== '')
              throw new errors.InvalidScope('requested scope is not allowed', unregistered);
            return {
              scope: machineScopes(client.scope, scopes),
              audience: policy.audience,
              accessTokenTTL: oidc.accessTokenTtlSeconds,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'ES256' } },
            };
          }
          return {
            scope: apiScopes,
            audience: policy.audience,
            accessTokenTTL: oidc.accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
      // A client learns about, and revokes, its own tokens only; anything else is simply inactive, and
      // revoking it is a 200 that does nothing (RFC 7009 §2.2), never an error that confirms it exists.
      // A resource server (client-metadata.ts) may also introspect every access token of others.
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) =>
          token.clientId === client.clientId || (token.kind !== 'RefreshToken' && isResourceServer(client)),
      },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: policy.pages.logoutSource,
        postLogoutSuccessSource: policy.pages.postLogoutSuccessSource,
      },
      // Services calling Gatehouse as themselves: only clients registered with the grant (the
      // library checks grant_types), never a public one (oauth/clients.ts).
      clientCredentials: { enabled: true },
      // RFC 8628 for TVs and command-line tools: 8 letters without vowels (no words, 20^8 codes),
      // shown as XXXX-XXXX; the pages are ours, slow_down is http/oauth/device-polling.ts.
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: policy.pages.deviceCodeInput,
        userCodeConfirmSource: policy.pages.deviceCodeConfirm,
        successSource: policy.pages.deviceSuccess,
      },
      // Not offered: DPoP (no client of ours needs sender-constrained tokens yet), pushed
      // authorization requests, request objects.
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      claimsParameter: { enabled: false },
    },
    // POST /oauth/authorize and POST /oauth/logout are turned into GETs before they reach the library
    // (http/oauth/post-as-get.ts): its own POST support needs a SameSite=None session cookie.
    enableHttpPostMethods: false,
    renderError: policy.pages.renderError,
    // Revoking an access token at /oauth/revoke does not end its grant; revoking a refresh token does.
    revokeGrantPolicy: (ctx) => !(ctx.oidc.route === 'revocation' && ctx.oidc.entities.AccessToken),
    conformIdTokenClaims: true,
    // Back-channel logout is ours (logout-notices.ts), so the library does not announce it; left out,
    // Back-Channel Logout 1.0 §2.1 reads both as false. The first entry is the library's default.
    discovery: {
      claim_types_supported: ['normal'],
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      ui_locales_supported: [...SUPPORTED_LOCALES], // what ui_locales chooses among (interaction-routes.ts)
    },
    // The library's own CORS rule, stated: a browser may call the token, userinfo and revocation
    // endpoints from the origin of one of the calling client's redirect URIs.
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
  };
}

/**
 * The library's policy (login, then consent) with one change: its rule that a native client is asked
 * every time (RFC 8252 §8.6: another app could claim its redirect URI) is kept, but `prompt=none` hears
 * what it is, `consent_required` (OpenID Connect Core §3.1.2.6), not the library's
 * `interaction_required` (docs/guides/oidc-provider.md "Consent").
 */
function interactionPolicy(library: OidcLibrary) {
  const { base } = library.interactionPolicy;
  const policy = base();
  const native = policy.get('consent')?.checks.get('native_client_prompt');
  if (!native) throw new Error('oidc-provider no longer has its native_client_prompt consent check');
  native.error = 'consent_required';
  return policy;
}

/**
 * A scope nobody can grant is refused with invalid_scope (RFC 6749 §4.1.2.1, RFC 8628 §3.2) instead
 * of being dropped silently, as the library does with scopes it does not know. The library runs
 * parameter checks for the authorization endpoint after the redirect URI was verified, so the error
 * goes back to the client, before any page; for the device authorization endpoint, before a code is
 * issued (a check in the interaction would have let the device poll and a person type its code first).
 */
function knownScopes(library: OidcLibrary, scopes: ScopeCatalogue) {
  return async (_ctx: unknown, value: unknown) => {
    const unknown = String(value ?? '')
      .split(' ')
      .filter((scope) => scope !== '' && !scopes.all.has(scope));
    if (unknown.length)
      throw new library.errors.InvalidScope('requested scope is not recognised', unknown.join(' '));
  };
}

/** The API abilities a client may hold as itself: its registered scopes among TOKEN_ABILITIES. */
function machineScopes(clientScope: string | undefined, scopes: ScopeCatalogue): string {
  const api = new Set(scopes.api);
  return (clientScope ?? '')
    .split(' ')
    .filter((scope) => api.has(scope))
    .join(' ');
}
