import type { Generated, Insertable, Selectable } from 'kysely';

/** docs/guides/organizations.md. Timestamps are epoch milliseconds, as everywhere. */
export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  /** `[a-z0-9-]{2,63}`, unique, never changed once created. */
  slug: string;
  created_at: number;
  updated_at: number;
}

export interface OrganizationMembershipsTable {
  id: Generated<number>;
  organization_id: number;
  user_id: number;
  /** `owner`, `admin`, `member` or a role of ORG_ROLES. */
  role: string;
  created_at: number;
  updated_at: number;
}

export interface OrganizationInvitationsTable {
  id: Generated<number>;
  organization_id: number;
  /** The invited address, normalised as users.email (trimmed, NFC, lower-cased). */
  email: string;
  role: string;
  /** SHA-256 (hex) of the link's secret; the secret itself is only in the mail. */
  token_hash: string;
  /** Who sent it (null once that account is deleted); never shown in the mail. */
  invited_by: number | null;
  expires_at: number;
  created_at: number;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type MembershipRow = Selectable<OrganizationMembershipsTable>;
export type InvitationRow = Selectable<OrganizationInvitationsTable>;
export type NewInvitationRow = Insertable<OrganizationInvitationsTable>;
