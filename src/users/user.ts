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
    created_at: isoString(user.createdAt),
    updated_at: isoString(user.updatedAt),
  };
}

export function iso(ms: number | null): string | null {
  return ms === null ? null : isoString(ms);
}

// Date#toISOString costs ~2 µs, and GET /api/user formats the same three timestamps of a user on
// every request: the strings are kept (bounded; emptied when full).
const isoStrings = new Map<number, string>();
const ISO_STRINGS_LIMIT = 10_000;

function isoString(ms: number): string {
  let text = isoStrings.get(ms);
  if (text === undefined) {
    text = new Date(ms).toISOString();
    if (isoStrings.size >= ISO_STRINGS_LIMIT) isoStrings.clear();
    isoStrings.set(ms, text);
  }
  return text;
}

/** Lower-cases and trims an address the way it is stored, so lookups are case-insensitive. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
