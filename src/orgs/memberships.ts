import type { Db } from '../db/schema.ts';
import { membershipsOfUser } from './orgs.repository.ts';
import type { OrgRoles } from './roles.ts';

/**
 * One organization a user belongs to, as every application-facing answer shows it: GET /api/user's
 * `organizations`, forward auth's Remote-Groups (`org:<slug>:<role>`), the OIDC `orgs` claim.
 */
export interface OrgMembership {
  /** The organization's id. */
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly role: string;
  /** The role's abilities (ORG_ROLES). */
  readonly abilities: readonly string[];
}

/**
 * A user's memberships by user id — the one source behind `/api/user`, Remote-Groups, the `orgs` claim
 * and the pages. A plain lookup (one indexed read); services.ts wraps it like the other per-request
 * lookups, so a bearer request does not pay a query for it while nothing changed.
 */
export type FindMemberships = (userId: number) => Promise<readonly OrgMembership[]>;

export function membershipFinder(db: Db, roles: OrgRoles): FindMemberships {
  return async (userId) =>
    (await membershipsOfUser(db, userId)).map((row) => ({
      id: row.organization_id,
      slug: row.slug,
      name: row.name,
      role: row.role,
      abilities: roles.abilitiesOf(row.role),
    }));
}

/** Forward auth's Remote-Groups value: `org:<slug>:<role>` for each membership, comma-separated. */
export function remoteGroups(memberships: readonly OrgMembership[]): string {
  let value = '';
  for (const m of memberships) value += `${value === '' ? '' : ','}org:${m.slug}:${m.role}`;
  return value;
}
