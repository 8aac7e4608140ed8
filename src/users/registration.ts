import type { Kysely, Transaction } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { newPasswordField } from '../auth/passwords/password-policy.ts';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import type { Database } from '../db/schema.ts';
import { field, rules } from '../lib/validation.ts';
import { createUser } from './new-user.ts';
import type { User } from './user.ts';

/** docs/guides/sessions-and-spas.md /register: name, e-mail (unique), password (8–128, confirmed, not common). */
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

/** Creates an account (users/new-user.ts: one address, one account, whatever the races). */
export async function registerUser(
  db: Kysely<Database>,
  hasher: PasswordHasher,
  input: RegistrationInput,
  audit: AuditContext,
  hooks: RegistrationHooks = {},
): Promise<RegistrationResult> {
  const result = await createUser(
    { db, hasher },
    { ...input, verifiedAt: null, canAccessPanel: false },
    audit.now,
    async (trx, user) => {
      await recordAudit(trx, 'user.registered', { ...audit, actorId: user.id }, user.id);
      await hooks.afterCreate?.(trx, user);
    },
  );
  return result.status === 'created' ? { status: 'registered', user: result.user } : result;
}
