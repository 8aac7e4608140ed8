import type { pendingInvitations } from './invitations.repository.ts';
import type { membersOf } from './orgs.repository.ts';

/** A member as an organization's page and the panel show them. */
export interface OrgMember {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly role: string;
  readonly joinedAt: number;
}

/** A pending invitation as the same pages show it (never its token). */
export interface OrgInvitation {
  readonly id: number;
  readonly email: string;
  readonly role: string;
  readonly expiresAt: number;
}

type MemberRow = Awaited<ReturnType<typeof membersOf>>[number];
type InvitationRow = Awaited<ReturnType<typeof pendingInvitations>>[number];

export function toMember(row: MemberRow): OrgMember {
  return { id: row.user_id, name: row.name, email: row.email, role: row.role, joinedAt: row.created_at };
}

export function toInvitation(row: InvitationRow): OrgInvitation {
  return { id: row.id, email: row.email, role: row.role, expiresAt: row.expires_at };
}
