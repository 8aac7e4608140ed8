import type { Kysely } from 'kysely';
import { type AccountDeletionDeps, type DeletionResult, deleteAccount } from '../account/account-deletion.ts';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { storeResetToken } from '../auth/password-reset/password-resets.repository.ts';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import { queueVerificationMail, type VerificationSettings } from '../auth/verification/email-verification.ts';
import type { Database } from '../db/schema.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { field, rules } from '../lib/validation.ts';
import type { Mailing } from '../mail/mailing.ts';
import { invitationMessage } from '../mail/messages.ts';
import { createUser } from '../users/new-user.ts';
import { toUser, type User } from '../users/user.ts';
import { findUserById } from '../users/users.repository.ts';

/**
 * Accounts an administrator creates, re-mails or deletes from the panel. Each writes its change and
 * its audit row (who, what, when, from where) in one transaction; mails go through the outbox in
 * that same transaction, so a mail exists exactly when its change does.
 */

export const inviteSchema = {
  name: field.required(rules.line(), rules.max(255)),
  email: field.required(rules.string(), rules.email(), rules.max(255)),
};

export interface LifecycleDeps {
  readonly db: Kysely<Database>;
  readonly hasher: PasswordHasher;
  readonly mailing: Mailing;
  /** PASSWORD_RESET_EXPIRE: the invitation's link is a reset link and lives as long. */
  readonly resetExpireMinutes: number;
}

export type InviteResult = { status: 'invited'; user: User } | { status: 'email_taken' };

/**
 * Creates an account and mails it a link to choose its first password. The administrator never types
 * or sees a password: the stored hash is of 32 random bytes nobody keeps, so the account cannot be
 * signed in to until the link is used (the link also verifies the address). The unique index decides
 * between two admins inviting one address at once.
 */
export async function inviteUser(
  deps: LifecycleDeps,
  input: { name: string; email: string; locale: string },
  audit: AuditContext,
): Promise<InviteResult> {
  const token = randomToken(32);
  const result = await createUser(
    deps,
    { ...input, password: randomToken(32), verifiedAt: null, canAccessPanel: false },
    audit.now,
    async (trx, user) => {
      await storeResetToken(trx, user.id, sha256Hex(token), audit.now, 0);
      await deps.mailing.queue.enqueue(
        trx,
        invitationMessage(
          deps.mailing.context,
          { email: user.email, locale: user.locale },
          token,
          deps.resetExpireMinutes,
        ),
      );
      await recordAudit(trx, 'admin.user.invited', audit, user.id);
    },
  );
  if (result.status === 'email_taken') return result;
  deps.mailing.queue.wake();
  return { status: 'invited', user: result.user };
}

/** A new verification link for a user who has not verified yet (in the user's own language). */
export async function sendVerificationLink(
  db: Kysely<Database>,
  mailing: Mailing,
  settings: VerificationSettings,
  userId: number,
  audit: AuditContext,
): Promise<'sent' | 'already_verified' | 'not_found'> {
  const result = await db.transaction().execute(async (trx) => {
    const row = await findUserById(trx, userId);
    if (row === undefined) return 'not_found' as const;
    if (row.email_verified_at !== null) return 'already_verified' as const;
    await queueVerificationMail(trx, mailing, settings, toUser(row), audit.now);
    await recordAudit(trx, 'admin.user.verification_sent', audit, userId);
    return 'sent' as const;
  });
  if (result === 'sent') mailing.queue.wake();
  return result;
}

export type DeleteResult = Exclude<DeletionResult, 'deleted'> | 'deleted' | 'self';

/**
 * The panel's delete: the one deletion use case (account/account-deletion.ts: everything that belongs
 * to the account, in one transaction; audit rows keep the id, lose the address), audited as
 * admin.user.deleted with the admin as actor, without a goodbye mail. Nobody deletes themselves here
 * (that is DELETE /user, with their own password), and nobody deletes the owner (docs/security.md).
 */
export async function deleteUser(
  deps: AccountDeletionDeps,
  userId: number,
  audit: AuditContext,
): Promise<DeleteResult> {
  if (audit.actorId === userId) return 'self';
  return deleteAccount(deps, userId, { event: 'admin.user.deleted', goodbyeLocale: null }, audit);
}
