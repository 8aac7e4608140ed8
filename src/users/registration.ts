import type { Kysely, Transaction } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { newPasswordField } from '../auth/password-policy.ts';
import type { PasswordHasher } from '../auth/passwords.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/schema.ts';
import { field, rules } from '../lib/validation.ts';
import { normaliseEmail, toUser, type User } from './user.ts';
import { findUserByEmail, insertUser } from './users.repository.ts';

/** CONTRACT §4 /register: name, e-mail (unique), password (8–128, confirmed, not common). */
export const registrationSchema = {
  name: field.required(rules.line(), rules.max(255)),
  email: field.required(rules.string(), rules.email(), rules.max(255)),
  password: newPasswordField(),
};

export interface RegistrationInput {
  readonly name: string;
  readonly email: string;
  readonly password: string;
  /** The language of the registering request; later mails to the user use it. */
  readonly locale: string;
}

export interface RegistrationHooks {
  /**
   * Runs inside the registration's transaction, after the user row exists: the place to enqueue the
   * verification mail, so the mail exists exactly when the account does (a throw rolls both back).
   */
  readonly afterCreate?: (trx: Transaction<Database>, user: User) => Promise<void>;
}

export type RegistrationResult =
  | { readonly status: 'registered'; readonly user: User }
  | { readonly status: 'email_taken' };

/**
 * Creates an account. The address is stored lower-cased, so the unique index on users.email makes it
 * unique case-insensitively; the index (not the friendly pre-check) is what decides between two
 * concurrent registrations of one address: the loser's insert fails and becomes `email_taken`.
 */
export async function registerUser(
  db: Kysely<Database>,
  hasher: PasswordHasher,
  input: RegistrationInput,
  audit: AuditContext,
  hooks: RegistrationHooks = {},
): Promise<RegistrationResult> {
  const email = normaliseEmail(input.email);
  // Spares an argon2 hash for the common case of an address that is already known.
  if ((await findUserByEmail(db, email)) !== undefined) return { status: 'email_taken' };
  const password = await hasher.hash(input.password);
  try {
    const user = await db.transaction().execute(async (trx) => {
      const row = await insertUser(trx, {
        name: input.name.trim(),
        email,
        password,
        email_verified_at: null,
        locale: input.locale,
        can_access_panel: 0,
        disabled_at: null,
        created_at: audit.now,
        updated_at: audit.now,
      });
      const created = toUser(row);
      await recordAudit(trx, 'user.registered', { ...audit, actorId: created.id }, created.id);
      await hooks.afterCreate?.(trx, created);
      return created;
    });
    return { status: 'registered', user };
  } catch (error) {
    if (isUniqueViolation(error)) return { status: 'email_taken' };
    throw error;
  }
}
