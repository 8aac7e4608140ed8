import type { Kysely } from 'kysely';
import type { AuditContext } from '../audit/audit.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { User } from '../users/user.ts';
import { type OrgAttempt, refusalBefore } from './access.ts';
import { browseOrganizations, organizationRecord } from './directory.ts';
import type { PresentedInvitation } from './invitation-links.ts';
import {
  acceptInvitation,
  cancelInvitation,
  type InvitationDeps,
  invitationFor,
  inviteMember,
} from './invitations.ts';
import { changeMemberRole, type MemberRef, removeMember } from './members.ts';
import type { FindMemberships } from './memberships.ts';
import {
  createOrganization,
  deleteOrganization,
  type OrgDeps,
  organizationDetail,
  renameOrganization,
} from './organizations.ts';
import type { OrgRoles } from './roles.ts';

export interface OrgServiceDeps {
  readonly config: Pick<Config, 'appUrl' | 'appKey' | 'orgInvitationExpireMinutes'>;
  readonly db: Kysely<Database>;
  readonly mailing: Mailing;
  readonly roles: OrgRoles;
  /** The per-request lookup of a user's memberships, as services.ts wraps it. */
  readonly findMemberships: FindMemberships;
}

/** Organizations (docs/guides/organizations.md): the use cases the routes call, wired once. */
export function createOrgService(deps: OrgServiceDeps) {
  const org: OrgDeps = { db: deps.db, roles: deps.roles };
  const invitations: InvitationDeps = {
    ...org,
    mailing: deps.mailing,
    links: { appUrl: deps.config.appUrl, appKey: deps.config.appKey },
    expireMinutes: deps.config.orgInvitationExpireMinutes,
  };
  return {
    /** The roles (owner, admin, member and ORG_ROLES) with their abilities. */
    roles: deps.roles,
    /**
     * A user's organizations with role and abilities — the one source of GET /api/user's
     * `organizations`, forward auth's Remote-Groups and the OIDC `orgs` claim.
     */
    membershipsOf: deps.findMemberships,
    create: (user: User, input: { name: string; slug: string }, audit: AuditContext) =>
      createOrganization(org, user, input, audit),
    detail: (slug: string, userId: number, now: number) => organizationDetail(org, slug, userId, now),
    /** Whether the user may set out to do this at all (access.ts): asked before the input is read. */
    refusalBefore: (slug: string, userId: number, attempt: OrgAttempt, targetId?: number) =>
      refusalBefore(deps.db, slug, userId, attempt, targetId),
    rename: (slug: string, userId: number, name: string, audit: AuditContext) =>
      renameOrganization(org, slug, userId, name, audit),
    delete: (slug: string, userId: number, audit: AuditContext) =>
      deleteOrganization(org, slug, userId, audit),
    changeRole: (slug: string, userId: number, member: MemberRef, role: string, audit: AuditContext) =>
      changeMemberRole(org, slug, userId, member, role, audit),
    removeMember: (slug: string, userId: number, member: MemberRef, audit: AuditContext) =>
      removeMember(org, slug, userId, member, audit),
    invite: (
      slug: string,
      userId: number,
      input: { email: string; role: string; locale: string },
      audit: AuditContext,
    ) => inviteMember(invitations, slug, userId, input, audit),
    cancelInvitation: (slug: string, userId: number, invitationId: number, audit: AuditContext) =>
      cancelInvitation(org, slug, userId, invitationId, audit),
    /** What an invitation link offers the signed-in user (nothing changes). */
    invitation: (link: PresentedInvitation, user: User, now: number) =>
      invitationFor(invitations, link, user, now),
    accept: (link: PresentedInvitation, user: User, audit: AuditContext) =>
      acceptInvitation(invitations, link, user, audit),
    /** The panel's read-only view of every organization. */
    panel: {
      browse: (query: { search: string; page: number }, pageSize: number) =>
        browseOrganizations(deps.db, query, pageSize),
      record: (id: number, now: number) => organizationRecord(deps.db, id, now),
    },
  };
}

export type OrgService = ReturnType<typeof createOrgService>;
