import type { FindMemberships } from '../orgs/memberships.ts';
import type { User } from '../users/user.ts';

/**
 * The scopes that carry claims, and each scope's claim names: discovery, the ID token and userinfo
 * follow from this list (a new scope with claims is one more entry here and one source below).
 */
export const CLAIM_NAMES = {
  profile: ['name', 'updated_at'],
  email: ['email', 'email_verified'],
  orgs: ['orgs'],
} as const satisfies Record<string, readonly string[]>;

/** Where the claims of a scope come from. */
export interface ClaimSource {
  readonly scope: keyof typeof CLAIM_NAMES & string;
  read(user: User): Readonly<Record<string, unknown>> | Promise<Readonly<Record<string, unknown>>>;
}

export function claimSources(findMemberships: FindMemberships): readonly ClaimSource[] {
  return [
    {
      scope: 'profile',
      // OpenID Connect Core §5.1: updated_at is in seconds since the epoch.
      read: (user) => ({ name: user.name, updated_at: Math.floor(user.updatedAt / 1000) }),
    },
    {
      scope: 'email',
      read: (user) => ({ email: user.email, email_verified: user.emailVerifiedAt !== null }),
    },
    {
      scope: 'orgs',
      // docs/guides/organizations.md: each organization's id, slug, the user's role there and that role's
      // abilities (ORG_ROLES: what a relying party acts on); no names (one that shows them asks
      // Gatehouse's API).
      read: async (user) => ({
        orgs: (await findMemberships(user.id)).map(({ id, slug, role, abilities }) => ({
          id,
          slug,
          role,
          abilities,
        })),
      }),
    },
  ];
}

/** oidc-provider's `claims` setting: each scope's claim names (and the claims any token may carry). */
export function claimsByScope(): Record<string, string[] | null> {
  return {
    // How and when the person signed in go into every ID token (the library picks them from the
    // code's session, never from userinfo's account claims, which hold neither).
    openid: ['sub', 'auth_time', 'amr'],
    sid: null,
    acr: null,
    iss: null,
    ...Object.fromEntries(Object.entries(CLAIM_NAMES).map(([scope, claims]) => [scope, [...claims]])),
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
