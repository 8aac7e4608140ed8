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

/** Pending e-mail changes are the account page's business (account/email-change.ts), not every request's. */
export function toUser(row: Omit<UserRow, 'password' | 'pending_email' | 'pending_email_at'>): User {
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

/**
 * The one door every e-mail address passes (registration, login, forgot-password, invitations, e-mail
 * change, import, CLI): trimmed, NFC-normalised, then lower-cased — the form stored and looked up.
 * NFC first (docs/security.md): "josé" typed with a precomposed "é" or with "e" + combining accent must
 * be one account, not two that look identical (a lookalike account, or a reset that finds nobody).
 */
export function normaliseEmail(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

/**
 * What users.password holds for an account without a password: one made through a login provider
 * (docs/guides/login-providers.md). No hash is ever this value, so no password verifies against it; the
 * hasher still spends a verification on it (auth/passwords/passwords.ts), and the reset flow sets one.
 */
export const NO_PASSWORD = '';

/** Whether a stored users.password is a password the user can sign in with. */
export function hasPassword(stored: string): boolean {
  return stored !== NO_PASSWORD;
}
