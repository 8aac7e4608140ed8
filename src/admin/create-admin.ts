import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { withPasswordFacts } from '../auth/passwords/password-policy.ts';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import type { Database } from '../db/schema.ts';
import type { Translate } from '../i18n/i18n.ts';
import { validate } from '../lib/validation.ts';
import { createUser } from '../users/new-user.ts';
import { registrationSchema } from '../users/registration.ts';
import { normaliseEmail, toUser, type User } from '../users/user.ts';

export interface NewAdminInput {
  name: string;
  email: string;
  password: string;
}

/**
 * Validates like registration (the same schema: name ≤ 255, e-mail ≤ 255, password 8–128 and not a
 * common one). `confirmation` is the second typing of the password; a password given as a flag is
 * its own confirmation. Throws ValidationError, whose summary is the CLI's one line.
 */
export function validateNewAdmin(
  input: NewAdminInput & { confirmation?: string },
  t: Translate,
  appName: string,
): NewAdminInput {
  const value = validate<NewAdminInput>(
    withPasswordFacts(
      {
        name: input.name,
        email: input.email,
        password: input.password,
        password_confirmation: input.confirmation ?? input.password,
      },
      { appName },
    ),
    registrationSchema,
    t,
  );
  return { name: value.name.trim(), email: normaliseEmail(value.email), password: value.password };
}

export interface CreateAdminDeps {
  /** A connection, not a transaction: the use case opens its own. */
  readonly db: Kysely<Database>;
  readonly hasher: PasswordHasher;
  readonly canAccessPanel: (user: User) => boolean;
  /** The language of the admin's mails (APP_LOCALE): there is no request to take it from. */
  readonly locale: string;
}

export type CreateAdminResult =
  | { readonly status: 'ok'; readonly user: User }
  | { readonly status: 'taken' }
  /** The access check would refuse this user anyway (e.g. its domain is outside PANEL_EMAIL_DOMAINS). */
  | { readonly status: 'refused' };

/**
 * Creates a verified user with the panel-access flag (the seed: admins are made explicitly, by a
 * command). The user row and its `admin.created` audit row are written in one transaction, so a
 * failure leaves nothing behind; of two concurrent creations of one address the unique index lets
 * exactly one succeed.
 */
export async function createAdmin(
  deps: CreateAdminDeps,
  input: NewAdminInput,
  audit: AuditContext,
): Promise<CreateAdminResult> {
  const now = audit.now;
  const draft = {
    name: input.name,
    email: input.email,
    email_verified_at: now,
    locale: deps.locale,
    can_access_panel: 1,
    disabled_at: null,
    created_at: now,
    updated_at: now,
  };
  if (!deps.canAccessPanel(toUser({ ...draft, id: 0 }))) return { status: 'refused' };
  const result = await createUser(
    deps,
    { ...input, locale: deps.locale, verifiedAt: now, canAccessPanel: true },
    now,
    async (trx, user) => {
      await recordAudit(trx, 'admin.created', audit, user.id, { email: user.email });
    },
  );
  return result.status === 'created' ? { status: 'ok', user: result.user } : { status: 'taken' };
}
