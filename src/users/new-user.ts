import type { Kysely, Transaction } from 'kysely';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/schema.ts';
import { NO_PASSWORD, normaliseEmail, toUser, type User } from './user.ts';
import { findUserByEmail, insertUser } from './users.repository.ts';

export interface NewUser {
  readonly name: string;
  readonly email: string;
  /** The plain password; only its hash is stored. null: none (an account made through a login provider). */
  readonly password: string | null;
  readonly locale: string;
  /** When the address counts as verified; null until its link is opened. */
  readonly verifiedAt: number | null;
  readonly canAccessPanel: boolean;
}

export type NewUserResult =
  | { readonly status: 'created'; readonly user: User }
  | { readonly status: 'email_taken' };

/**
 * The one way a user row is born (registration, a panel invitation, make:admin, a sign-in through
 * another provider). The address is stored normalised (lower-cased, NFC), so the unique index on
 * users.email makes it unique case-insensitively; that index, not the friendly pre-check, decides between two concurrent
 * creations of one address: the loser's insert fails and becomes `email_taken`. `withUser` runs in the
 * row's transaction: what it writes (audit row, mails, a reset token) exists exactly when the user does.
 */
export async function createUser(
  deps: { readonly db: Kysely<Database>; readonly hasher: PasswordHasher },
  input: NewUser,
  now: number,
  withUser: (trx: Transaction<Database>, user: User) => Promise<void>,
): Promise<NewUserResult> {
  const email = normaliseEmail(input.email);
  // Spares an argon2 hash for the common case of an address that is already known.
  if ((await findUserByEmail(deps.db, email)) !== undefined) return { status: 'email_taken' };
  const password = input.password === null ? NO_PASSWORD : await deps.hasher.hash(input.password);
  try {
    const user = await deps.db.transaction().execute(async (trx) => {
      const row = await insertUser(trx, {
        name: input.name.trim(),
        email,
        password,
        email_verified_at: input.verifiedAt,
        locale: input.locale,
        can_access_panel: input.canAccessPanel ? 1 : 0,
        disabled_at: null,
        created_at: now,
        updated_at: now,
      });
      const created = toUser(row);
      await withUser(trx, created);
      return created;
    });
    return { status: 'created', user };
  } catch (error) {
    if (isUniqueViolation(error)) return { status: 'email_taken' };
    throw error;
  }
}
