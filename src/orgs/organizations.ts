import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/schema.ts';
import type { User } from '../users/user.ts';
import { accessOf, type OrgRefusal, orgDetails } from './access.ts';
import { pendingInvitations } from './invitations.repository.ts';
import {
  deleteOrganizationRow,
  insertMembership,
  insertOrganization,
  membersOf,
  renameOrganization as renameRow,
} from './orgs.repository.ts';
import { type OrgInvitation, type OrgMember, toInvitation, toMember } from './people.ts';
import { canDeleteOrganization, canManage, OWNER } from './policy.ts';
import type { OrgRoles } from './roles.ts';

/** The organization use cases (docs/guides/organizations.md): create, see, rename, delete. */

export interface OrgDeps {
  readonly db: Kysely<Database>;
  readonly roles: OrgRoles;
}

/** An organization as its member's list shows it (GET /orgs, POST /orgs, /api/user). */
export interface OrgSummary {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly role: string;
}

export type CreateResult =
  | { readonly status: 'created'; readonly organization: OrgSummary }
  | { readonly status: 'unverified' }
  | { readonly status: 'slug_taken' };

/**
 * A verified user creates an organization and is its owner, in one transaction with the audit row
 * (org.created, reported as the webhook org.member.added for the creator). The slug's unique index
 * decides between two creations of one slug: the loser's insert fails and becomes `slug_taken`.
 */
export async function createOrganization(
  deps: OrgDeps,
  user: User,
  input: { readonly name: string; readonly slug: string },
  audit: AuditContext,
): Promise<CreateResult> {
  if (user.emailVerifiedAt === null) return { status: 'unverified' };
  try {
    const organization = await deps.db.transaction().execute(async (trx) => {
      const id = await insertOrganization(trx, { name: input.name, slug: input.slug, now: audit.now });
      await insertMembership(trx, { organizationId: id, userId: user.id, role: OWNER, now: audit.now });
      await recordAudit(trx, 'org.created', audit, user.id, {
        ...orgDetails({ id, slug: input.slug }),
        name: input.name,
        role: OWNER,
      });
      return { id, slug: input.slug, name: input.name, role: OWNER };
    });
    return { status: 'created', organization };
  } catch (error) {
    // On PostgreSQL the failed insert has ended the transaction: decided here, after it.
    if (isUniqueViolation(error)) return { status: 'slug_taken' };
    throw error;
  }
}

export interface OrgDetail extends OrgSummary {
  /** The viewer's abilities in it (their role's, ORG_ROLES). */
  readonly abilities: readonly string[];
  readonly createdAt: number;
  readonly members: readonly OrgMember[];
  /** Pending invitations; listed to those who manage the organization only. */
  readonly invitations: readonly OrgInvitation[];
  /** Whether the viewer manages it (owner or admin). */
  readonly manages: boolean;
}

/** GET /orgs/{slug}: null for an unknown slug and for a non-member alike (orgs/access.ts). */
export async function organizationDetail(
  deps: OrgDeps,
  slug: string,
  userId: number,
  now: number,
): Promise<OrgDetail | null> {
  const access = await accessOf(deps.db, slug, userId);
  if (access === null) return null;
  const { organization, role } = access;
  const manages = canManage(role);
  const [members, invitations] = await Promise.all([
    membersOf(deps.db, organization.id),
    manages ? pendingInvitations(deps.db, organization.id, now) : Promise.resolve([]),
  ]);
  return {
    id: organization.id,
    slug: organization.slug,
    name: organization.name,
    role,
    abilities: deps.roles.abilitiesOf(role),
    createdAt: organization.created_at,
    manages,
    members: members.map(toMember),
    invitations: invitations.map(toInvitation),
  };
}

/** PUT /orgs/{slug}: owners and admins change the name; the slug stays. */
export async function renameOrganization(
  deps: OrgDeps,
  slug: string,
  userId: number,
  name: string,
  audit: AuditContext,
): Promise<'renamed' | OrgRefusal> {
  return deps.db.transaction().execute(async (trx) => {
    const access = await accessOf(trx, slug, userId, { lock: true });
    if (access === null) return 'not_found';
    if (!canManage(access.role)) return 'forbidden';
    const { organization } = access;
    if (organization.name === name) return 'renamed';
    await renameRow(trx, organization.id, name, audit.now);
    await recordAudit(trx, 'org.updated', audit, null, {
      ...orgDetails(organization),
      name,
      previous_name: organization.name,
    });
    return 'renamed';
  });
}

/**
 * DELETE /orgs/{slug}: an owner deletes the organization, its memberships and invitations. Each member
 * is audited as removed (org.member.removed, so a webhook receiver mirroring memberships drops them all),
 * then the organization (org.deleted), in the one transaction that deletes.
 */
export async function deleteOrganization(
  deps: OrgDeps,
  slug: string,
  userId: number,
  audit: AuditContext,
): Promise<'deleted' | OrgRefusal> {
  return deps.db.transaction().execute(async (trx) => {
    const access = await accessOf(trx, slug, userId, { lock: true });
    if (access === null) return 'not_found';
    if (!canDeleteOrganization(access.role)) return 'forbidden';
    const { organization } = access;
    const members = await membersOf(trx, organization.id);
    for (const member of members) {
      await recordAudit(trx, 'org.member.removed', audit, member.user_id, {
        ...orgDetails(organization),
        role: member.role,
        reason: 'organization_deleted',
      });
    }
    await recordAudit(trx, 'org.deleted', audit, null, {
      ...orgDetails(organization),
      name: organization.name,
      members: members.length,
    });
    await deleteOrganizationRow(trx, organization.id);
    return 'deleted';
  });
}
