import type { Selectable } from 'kysely';

/** One live reset token per user: a newer request replaces the older one. */
export interface PasswordResetTokensTable {
  user_id: number;
  /** SHA-256 (hex) of the token mailed to the user. */
  token_hash: string;
  created_at: number;
}

export type PasswordResetTokenRow = Selectable<PasswordResetTokensTable>;
