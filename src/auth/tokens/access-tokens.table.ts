import type { Generated, Insertable, Selectable } from 'kysely';

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** SHA-256 (hex) of the secret part; the plaintext is shown once and never stored. */
  token: string;
  /** JSON array of ability strings, e.g. ["posts:read"] or ["*"]. */
  abilities: string;
  last_used_at: number | null;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
  /** Set when the token came from a Laravel import: only then are Sanctum's older plaintext forms accepted. */
  imported_at: Generated<number | null>;
}

export type AccessTokenRow = Selectable<PersonalAccessTokensTable>;
export type NewAccessTokenRow = Insertable<PersonalAccessTokensTable>;
