import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Timestamps are epoch milliseconds in every dialect, so domain code compares numbers, not strings. */
export interface UsersTable {
  id: Generated<number>;
  name: string;
  /** Always stored lower-cased; the unique index therefore makes it unique case-insensitively. */
  email: string;
  /** argon2id (or an imported bcrypt hash until the next successful login). Never leaves the service. */
  password: string;
  email_verified_at: number | null;
  /** The language of the request that registered the user; mails to them use it. */
  locale: string;
  /** The panel-access flag read by canAccessPanel(). 0 or 1. */
  can_access_panel: number;
  disabled_at: number | null;
  /** A new address waiting for its link to be opened (docs/guides/account.md); lower-cased like `email`. */
  pending_email: Generated<string | null>;
  pending_email_at: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
