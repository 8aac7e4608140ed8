import { insertReturningId } from '../../src/db/portable.ts';
import type { Db } from '../../src/db/schema.ts';

export interface UserRowInput {
  readonly email: string;
  /** Stored as given: an argon2id hash, an imported bcrypt hash, or a placeholder no login needs. */
  readonly passwordHash: string;
  readonly name?: string;
  /** Default true (email_verified_at = now). */
  readonly verified?: boolean;
  readonly panelAccess?: boolean;
  readonly locale?: string;
  readonly now?: number;
}

/**
 * The one user factory of the tests: inserts a user row directly (no registration, no mail, no audit
 * row) through `db`, a connection or an open transaction; returns its id.
 */
export async function insertUserRow(db: Db, input: UserRowInput): Promise<number> {
  const now = input.now ?? Date.now();
  // insertReturningId: MySQL has no RETURNING (db/portable.ts).
  return insertReturningId(db, 'users', {
    name: input.name ?? 'Inserted',
    email: input.email,
    password: input.passwordHash,
    email_verified_at: input.verified === false ? null : now,
    locale: input.locale ?? 'en',
    can_access_panel: input.panelAccess ? 1 : 0,
    disabled_at: null,
    created_at: now,
    updated_at: now,
  });
}
