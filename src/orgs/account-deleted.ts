import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { Db } from '../db/schema.ts';
import { orgDetails } from './access.ts';
import {
  countOwners,
  deleteMembership,
  deleteOrganizationRow,
  lockOrganization,
  membershipsOfUser,
  membersOf,
} from './orgs.repository.ts';
import { OWNER } from './policy.ts';

/**
 * An account is being deleted (account/account-deletion.ts, inside its transaction, before the user row
 * goes): it leaves every organization, so that no organization is left without an owner. An
 * organization it was the only owner of goes with it, as Jetstream deletes the teams a deleted user
 * owns — every member audited as removed (the webhook org.member.removed), then org.deleted; from any
 * other it is removed like a member who leaves. Organizations are locked in id order, as every change
 * of memberships locks them, so a concurrent change of roles cannot slip between the count and the
 * removal.
 */
export async function leaveAllOrganizations(db: Db, userId: number, audit: AuditContext): Promise<void> {
  const memberships = [...(await membershipsOfUser(db, userId))].sort(
    (a, b) => a.organization_id - b.organization_id,
  );
  for (const membership of memberships) {
    const organization = await lockOrganization(db, membership.organization_id);
    if (organization === undefined) continue;
    const soleOwner = membership.role === OWNER && (await countOwners(db, organization.id)) <= 1;
    if (!soleOwner) {
      await recordAudit(db, 'org.member.removed', audit, userId, {
        ...orgDetails(organization),
        role: membership.role,
        reason: 'account_deleted',
      });
      await deleteMembership(db, organization.id, userId);
      continue;
    }
    const members = await membersOf(db, organization.id);
    for (const member of members) {
      await recordAudit(db, 'org.member.removed', audit, member.user_id, {
        ...orgDetails(organization),
        role: member.role,
        reason: 'organization_deleted',
      });
    }
    await recordAudit(db, 'org.deleted', audit, null, {
      ...orgDetails(organization),
      name: organization.name,
      members: members.length,
      reason: 'owner_account_deleted',
    });
    await deleteOrganizationRow(db, organization.id);
  }
}
