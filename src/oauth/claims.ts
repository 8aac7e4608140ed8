import type { User } from '../users/user.ts';

/**
 * Where the claims of a scope come from. A new scope with claims (organizations' `orgs`) is one more
 * source in CLAIM_SOURCES; everything else — discovery, the ID token, userinfo — follows from the list.
 */
export interface ClaimSource {
  readonly scope: string;
  readonly claims: readonly string[];
  read(user: User): Readonly<Record<string, unknown>> | Promise<Readonly<Record<string, unknown>>>;
}

export const CLAIM_SOURCES: readonly ClaimSource[] = [
  {
    scope: 'profile',
    claims: ['name', 'updated_at'],
    // OpenID Connect Core §5.1: updated_at is in seconds since the epoch.
    read: (user) => ({ name: user.name, updated_at: Math.floor(user.updatedAt / 1000) }),
  },
  {
    scope: 'email',
    claims: ['email', 'email_verified'],
    read: (user) => ({ email: user.email, email_verified: user.emailVerifiedAt !== null }),
  },
];

/** oidc-provider's `claims` setting: each scope's claim names (and the claims any token may carry). */
export function claimsByScope(sources: readonly ClaimSource[]): Record<string, string[] | null> {
  return {
    // How and when the person signed in go into every ID token (the library picks them from the
    // code's session, never from userinfo's account claims, which hold neither).
    openid: ['sub', 'auth_time', 'amr'],
    sid: null,
    acr: null,
    iss: null,
    ...Object.fromEntries(sources.map((source) => [source.scope, [...source.claims]])),
  };
}

/** The claims of `user` for the granted scopes (`sub` always; the library filters what was granted). */
export async function userClaims(
  sources: readonly ClaimSource[],
  user: User,
  scope: string,
): Promise<Record<string, unknown>> {
  const granted = new Set(scope.split(' '));
  const claims: Record<string, unknown> = { sub: String(user.id) };
  for (const source of sources) if (granted.has(source.scope)) Object.assign(claims, await source.read(user));
  return claims;
}
