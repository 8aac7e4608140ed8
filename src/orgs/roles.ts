import type { OrgRoleDefinition } from '../config/org-roles.ts';

/**
 * The roles of organizations (docs/guides/organizations.md): `owner`, `admin` and `member`, plus those
 * ORG_ROLES adds, each with its abilities. Inside Gatehouse only owners and admins manage an
 * organization (orgs/policy.ts); a role of ORG_ROLES is a member's role with abilities the
 * applications read (GET /api/user, the `orgs` claim, forward auth's Remote-Groups).
 */
export interface OrgRoles {
  /** Every role name, the built-in ones first, in the order they were defined. */
  readonly names: readonly string[];
  has(role: string): boolean;
  /** The abilities of `role` (none for a name that is not a role: a role dropped from ORG_ROLES). */
  abilitiesOf(role: string): readonly string[];
}

export function orgRoleCatalogue(definitions: readonly OrgRoleDefinition[]): OrgRoles {
  const abilities = new Map(definitions.map((role) => [role.name, Object.freeze([...role.abilities])]));
  const none: readonly string[] = Object.freeze([]);
  return {
    names: Object.freeze([...abilities.keys()]),
    has: (role) => abilities.has(role),
    abilitiesOf: (role) => abilities.get(role) ?? none,
  };
}
