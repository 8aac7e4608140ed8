import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { accessOf, type OrgRefusal, orgDetails } from './access.ts';
import type { OrgDeps } from './organizations.ts';
import { countOwners, deleteMembership, findMembership, setMembershipRole } from './orgs.repository.ts';
import { canChangeRole, canRemove, leavesNoOwner } from './policy.ts';

/**
 * Members of an organization (docs/guides/organizations.md): a new role, a removal, leaving. Each runs in
 * one transaction that first locks the organization's row (orgs/access.ts), so the owners counted are
 * the owners there are when it writes: two owners demoting each other at once leave one owner, not none.
 */

/** `{user}` of the URL: a user id, or `me` (the acting user). */
export type MemberRef = number | 'me';

/** PUT /orgs/{slug}/members/{user}. */
export async function changeMemberRole(
  deps: OrgDeps,
  slug: string,
  actorId: number,
  member: MemberRef,
  role: string,
  audit: AuditContext,
): Promise<'changed' | OrgRefusal> {
  return deps.db.transaction().execute(async (trx) => {
    const access = await accessOf(trx, slug, actorId, { lock: true });
    if (access === null) return 'not_found';
    const { organization } = access;
    const targetId = member === 'me' ? actorId : member;
    const target = await findMembership(trx, organization.id, targetId);
    if (target === undefined) return 'not_found';
    if (!canChangeRole(access.role, target.role, role)) return 'forbidden';
    if (target.role === role) return 'changed';
    if (await leavesNoOwner(target.role, role, () => countOwners(trx, organization.id))) return 'last_owner';
    await setMembershipRole(trx, organization.id, targetId, role, audit.now);
    await recordAudit(trx, 'org.member.role_changed', audit, targetId, {
      ...orgDetails(organization),
      from: target.role,
      role,
    });
    return 'changed';
  });
}

/** DELETE /orgs/{slug}/members/{user}: owners and admins remove; `me` (or one's own id) leaves. */
export async function removeMember(
  deps: OrgDeps,
  slug: string,
  actorId: number,
  member: MemberRef,
  audit: AuditContext,
): Promise<'removed' | OrgRefusal> {
  return deps.db.transaction().execute(async (trx) => {
    const access = await accessOf(trx, slug, actorId, { lock: true });
    if (access === null) return 'not_found';
    const { organization } = access;
    const targetId = member === 'me' ? actorId : member;
    const self = targetId === actorId;
    const target = self ? { role: access.role } : await findMembership(trx, organization.id, targetId);
    if (target === undefined) return 'not_found';
    if (!canRemove(access.role, target.role, self)) return 'forbidden';
    if (await leavesNoOwner(target.role, null, () => countOwners(trx, organization.id))) return 'last_owner';
    await deleteMembership(trx, organization.id, targetId);
    await recordAudit(trx, 'org.member.removed', audit, targetId, {
      ...orgDetails(organization),
      role: target.role,
      reason: self ? 'left' : 'removed',
    });
    return 'removed';
  });
}
