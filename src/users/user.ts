import type { UserRow } from './users.table.ts';

/** A user as the rest of the service sees it: no password hash, flags as booleans. */
export interface User {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly emailVerifiedAt: number | null;
  readonly locale: string;
  readonly panelAccess: boolean;
  readonly disabledAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    emailVerifiedAt: row.email_verified_at,
    locale: row.locale,
    panelAccess: row.can_access_panel === 1,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The JSON shape of GET /api/user: never a password hash or remember token. */
export interface PublicUser {
  id: number;
  name: string;
  email: string;
  email_verified_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toPublicUser(user: User): PublicUser {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    email_verified_at: iso(user.emailVerifiedAt),
    created_at: new Date(user.createdAt).toISOString(),
    updated_at: new Date(user.updatedAt).toISOString(),
  };
}

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Lower-cases and trims an address the way it is stored, so lookups are case-insensitive. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
