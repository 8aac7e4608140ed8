import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * One row per user who started enrolling. The secret and the recovery codes are sealed with APP_KEY
 * (lib/sealing.ts), bound to the user and the column; `confirmed_at` null means "enrolment started,
 * not active yet" (a login is not challenged until a correct code confirmed the app works).
 */
export interface TwoFactorCredentialsTable {
  user_id: number;
  secret: string;
  /** A sealed JSON array of the unused recovery codes. */
  recovery_codes: string;
  confirmed_at: number | null;
  /** The last TOTP time step accepted: a code of this step or an earlier one is refused (replay). */
  last_used_step: number | null;
  /** Wrong codes in a row since the last right one (docs/security.md, two-factor/wrong-codes.ts). */
  failed_attempts: Generated<number>;
  /** Until when (ms) the challenges are refused after the tenth wrong code in a row; null: never was. */
  locked_until: number | null;
  created_at: number;
  updated_at: number;
}

export type TwoFactorCredentialsRow = Selectable<TwoFactorCredentialsTable>;
export type NewTwoFactorCredentialsRow = Insertable<TwoFactorCredentialsTable>;
