import type { Db } from '../db/schema.ts';
import { SLUG_PATTERN } from './org-forms.ts';
import { findMembership, findOrganizationBySlug } from './orgs.repository.ts';
import type { OrganizationRow } from './orgs.table.ts';
import { canActOn, canDeleteOrganization, canManage } from './policy.ts';

/** An organization as one of its members reaches it, with that member's role. */
export interface OrgAccess {
  readonly organization: OrganizationRow;
  readonly role: string;
}

/** Why a use case on an organization refused; routes turn each into one status (404, 403, 422). */
export type OrgRefusal = 'not_found' | 'forbidden' | 'last_owner';

/**
 * The organization of `slug` as `userId` reaches it, or null. Null both when there is no such
 * organization and when the user is not a member (docs/security.md): every /orgs/{slug} route answers a
 * non-member exactly as it answers an unknown slug, so nobody learns which organizations exist. A slug
 * that cannot be one (SLUG_PATTERN) asks nothing of the database. With `lock`, the organization's row
 * is locked for the rest of the transaction (orgs.repository.ts).
 */
export async function accessOf(
  db: Db,
  slug: string,
  userId: number,
  options: { lock: boolean } = { lock: false },
): Promise<OrgAccess | null> {
  if (!SLUG_PATTERN.test(slug)) return null;
  const organization = await findOrganizationBySlug(db, slug, options);
  if (organization === undefined) return null;
  const membership = await findMembership(db, organization.id, userId);
  return membership === undefined ? null : { organization, role: membership.role };
}

/** What a request sets out to do: manage the organization (rename, invite, change a role) or delete it. */
export type OrgAttempt = 'manage' | 'delete';

/**
 * Why `userId` may not even attempt `attempt` on `slug` (and, for a member's new role, on member
 * `targetId`: one of its members, and not an owner unless `userId` is one too), or null. Asked before the request's input is validated or a password confirmation
 * is demanded — the order of Laravel's route binding, authorization, then validation: a non-member gets
 * the 404 of an unknown slug and a member without the role 403 whatever they sent, never a 422 or a
 * 423 that answers differently for an organization that exists. The use case asks again, under the
 * organization's lock, with what only the input tells (the role granted, the last owner).
 */
export async function refusalBefore(
  db: Db,
  slug: string,
  userId: number,
  attempt: OrgAttempt,
  targetId?: number,
): Promise<OrgRefusal | null> {
  const access = await accessOf(db, slug, userId);
  if (access === null) return 'not_found';
  const allowed = attempt === 'delete' ? canDeleteOrganization(access.role) : canManage(access.role);
  if (!allowed) return 'forbidden';
  if (targetId !== undefined && targetId !== userId) {
    const target = await findMembership(db, access.organization.id, targetId);
    if (target === undefined) return 'not_found';
    if (!canActOn(access.role, target.role)) return 'forbidden';
  }
  return null;
}

/** The organization as audit rows and webhook events name it (docs/reference/audit-actions.md). */
export function orgDetails(organization: Pick<OrganizationRow, 'id' | 'slug'>) {
  return { organization_id: organization.id, organization_slug: organization.slug };
}
