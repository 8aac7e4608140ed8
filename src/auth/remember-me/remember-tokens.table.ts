import type { Generated, Insertable, Selectable } from 'kysely';

/** Remember-me tokens: selector (lookup) + validator (secret, stored as SHA-256 only). */
export interface RememberTokensTable {
  id: Generated<number>;
  selector: string;
  validator_hash: string;
  /** The validator's hash before the last rotation, accepted for a short grace (see remember-me.ts). */
  previous_validator_hash: string | null;
  rotated_at: number | null;
  user_id: number;
  guard: string;
  expires_at: number;
  created_at: number;
  last_used_at: number | null;
  /** Where and what the remembered browser was, for the account's session list. */
  ip_address: Generated<string | null>;
  user_agent: Generated<string | null>;
}

export type RememberTokenRow = Selectable<RememberTokensTable>;
export type NewRememberTokenRow = Insertable<RememberTokensTable>;
