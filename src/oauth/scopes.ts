/**
 * The scopes a client can ask for (docs/guides/oidc-provider.md "Scopes"): OpenID Connect's own, and
 * every API ability of TOKEN_ABILITIES, which a JWT access token then carries as its abilities on
 * Gatehouse's API (access-tokens.ts).
 */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'orgs', 'offline_access'] as const;

export interface ScopeCatalogue {
  /** The OpenID Connect scopes (claims and refresh tokens). */
  readonly oidc: readonly string[];
  /** The API abilities (TOKEN_ABILITIES). */
  readonly api: readonly string[];
  readonly all: ReadonlySet<string>;
  /** What a client registered without --scope may ask for. */
  defaultScope(refreshTokens: boolean): string;
}

export function scopeCatalogue(tokenAbilities: readonly string[]): ScopeCatalogue {
  const oidc = [...OIDC_SCOPES];
  const api = [...tokenAbilities];
  return {
    oidc,
    api,
    all: new Set([...oidc, ...api]),
    // Sign-in and profile only: API abilities are a client's only when it is registered with them.
    defaultScope: (refreshTokens) => `openid profile email${refreshTokens ? ' offline_access' : ''}`,
  };
}

/** Why a client may not be registered with (or ask for) `scope`, or null. */
export function scopeProblem(catalogue: ScopeCatalogue, scope: string): 'unknown_scope' | null {
  return catalogue.all.has(scope) ? null : 'unknown_scope';
}

/** The scopes of a request that are not in a client's registered list, space-separated. */
export function scopesOutside(requested: unknown, clientScope: string | undefined): string {
  const registered = new Set((clientScope ?? '').split(' '));
  return String(requested ?? '')
    .split(' ')
    .filter((scope) => scope !== '' && !registered.has(scope))
    .join(' ');
}
