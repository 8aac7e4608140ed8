import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import {
  checkSignedEmailLink,
  type LinkCheck,
  type PresentedLink,
  queueVerificationMail,
  signedEmailLink,
  type VerificationSettings,
} from '../auth/verification/email-verification.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { parseId } from '../db/ids.ts';
import type { Database } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import { recipientFor } from '../mail/messages.ts';
import { registrationSchema } from '../users/registration.ts';
import { normaliseEmail, toUser } from '../users/user.ts';
import { findUserByEmail, findUserById, updateUser } from '../users/users.repository.ts';
import { emailChangedMessage, emailChangeMessage, emailChangeRequestedMessage } from './mails.ts';
import { clearPendingEmail, setPendingEmail, switchToPendingEmail } from './pending-email.repository.ts';

/** PUT /user/profile-information (docs/guides/account.md): name and e-mail by the rules of registration. */
export const profileSchema = { name: registrationSchema.name, email: registrationSchema.email };

export interface ProfileDeps {
  readonly db: Kysely<Database>;
  readonly mailing: Mailing;
  /** APP_URL, APP_KEY and VERIFICATION_EXPIRE: the change link is signed and lives like a verification link. */
  readonly links: VerificationSettings;
}

export type ProfileResult =
  | { readonly status: 'saved' }
  /** A link went to `email`: the new address (pending), or the corrected address of an unverified user. */
  | { readonly status: 'link_sent'; readonly email: string }
  | { readonly status: 'email_taken' }
  | { readonly status: 'not_found' };

/**
 * Saves the name at once. A different e-mail address does NOT replace the current one (Better Auth
 * #7196: changing the address straight away hands the account to whoever typed it): it is kept as
 * pending and a signed link goes to it; only opening that link switches the address
 * (confirmEmailChange). A new request replaces a pending one (one column, one row: two browsers at
 * once leave exactly one pending address, and only the link for that address works, since the link
 * names the address it vouches for). Submitting the current address again cancels a pending change.
 *
 * An address that was never verified proves nothing, so an unverified user corrects a mistyped
 * address directly, and the verification link goes to the corrected one (docs/guides/account.md).
 */
export async function updateProfileInformation(
  deps: ProfileDeps,
  userId: number,
  input: { readonly name: string; readonly email: string },
  locale: string,
  audit: AuditContext,
): Promise<ProfileResult> {
  const name = input.name.trim();
  const email = normaliseEmail(input.email);
  try {
    const result = await deps.db.transaction().execute(async (trx): Promise<ProfileResult> => {
      const row = await findUserById(trx, userId);
      if (row === undefined) return { status: 'not_found' };
      if (email !== row.email) {
        const holder = await findUserByEmail(trx, email);
        if (holder !== undefined && holder.id !== userId) return { status: 'email_taken' };
      }
      if (name !== row.name) {
        await updateUser(trx, userId, { name, updated_at: audit.now });
        await recordAudit(trx, 'user.profile_updated', audit, userId, { fields: ['name'] });
      }
      if (email === row.email) {
        if (await clearPendingEmail(trx, userId)) {
          await recordAudit(trx, 'user.email_change_cancelled', audit, userId);
        }
        return { status: 'saved' };
      }
      if (row.email_verified_at === null) {
        await updateUser(trx, userId, {
          email,
          pending_email: null,
          pending_email_at: null,
          updated_at: audit.now,
        });
        const user = { ...toUser(row), email, name, locale };
        await queueVerificationMail(trx, deps.mailing, deps.links, user, audit.now);
        await recordAudit(trx, 'user.email_changed', audit, userId, {
          from: row.email,
          to: email,
          verified: false,
        });
        return { status: 'link_sent', email };
      }
      await setPendingEmail(trx, userId, email, audit.now);
      const link = signedEmailLink(deps.links, '/email/change', { id: userId, email }, audit.now);
      await deps.mailing.queue.enqueue(
        trx,
        emailChangeMessage(
          deps.mailing.context,
          { email, locale },
          { url: link.url, signature: link.signature, expiresInMinutes: deps.links.expireMinutes },
        ),
      );
      // The current address hears of it now, with a way to cancel (emailChangeRequestedMessage).
      const cancel = signedEmailLink(deps.links, '/email/cancel-change', { id: userId, email }, audit.now);
      await deps.mailing.queue.enqueue(
        trx,
        emailChangeRequestedMessage(deps.mailing.context, recipientFor(toUser(row), row.locale), {
          newEmail: email,
          at: audit.now,
          cancelUrl: cancel.url,
          signature: cancel.signature,
          expiresInMinutes: deps.links.expireMinutes,
        }),
      );
      await recordAudit(trx, 'user.email_change_requested', audit, userId, { to: email });
      return { status: 'link_sent', email };
    });
    if (result.status === 'link_sent') deps.mailing.queue.wake();
    return result;
  } catch (error) {
    // The unique index decides a race with a registration or another account's change.
    if (isUniqueViolation(error)) return { status: 'email_taken' };
    throw error;
  }
}

/** Cancels a pending change; false when there was none. */
export async function cancelEmailChange(
  deps: ProfileDeps,
  userId: number,
  audit: AuditContext,
): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    if (!(await clearPendingEmail(trx, userId))) return false;
    await recordAudit(trx, 'user.email_change_cancelled', audit, userId);
    return true;
  });
}

/**
 * The cancel link mailed to the current address: the pending address it names, while that address is
 * still the pending one and the link is unexpired and correctly signed; null otherwise. No session is
 * needed: the signature (APP_KEY) names the account and the address, and the mail went to the owner.
 */
export async function cancelLinkTarget(
  deps: ProfileDeps,
  link: PresentedLink,
  now: number,
): Promise<{ readonly userId: number; readonly pending: string } | null> {
  const userId = parseId(link.id);
  if (userId === null) return null;
  const row = await findUserById(deps.db, userId);
  if (row?.pending_email == null) return null;
  const target = { id: userId, email: row.pending_email };
  if (checkSignedEmailLink(deps.links, '/email/cancel-change', target, link, now) !== 'valid') return null;
  return { userId, pending: row.pending_email };
}

/** The button behind the cancel link: the change it names ends (false: the link no longer holds). */
export async function cancelEmailChangeByLink(
  deps: ProfileDeps,
  link: PresentedLink,
  audit: AuditContext,
): Promise<boolean> {
  const target = await cancelLinkTarget(deps, link, audit.now);
  if (target === null) return false;
  return deps.db.transaction().execute(async (trx) => {
    // Conditional on the address the link names: a newer request (with its own link) stays.
    if (!(await clearPendingEmail(trx, target.userId, target.pending))) return false;
    await recordAudit(trx, 'user.email_change_cancelled', audit, target.userId, { via: 'mail' });
    return true;
  });
}

export type EmailChangeResult = LinkCheck | 'changed' | 'email_taken' | 'no_pending';

/**
 * GET /email/change/{id}/{hash}: the link mailed to the new address. Valid only for the signed-in
 * user, while that address is still the pending one, unexpired and correctly signed. The switch is a
 * conditional UPDATE (… WHERE pending_email = the address the link names), so a link for an address
 * replaced in the meantime, or a second click, changes nothing. Then the *old* address is told.
 */
export async function confirmEmailChange(
  deps: ProfileDeps,
  userId: number,
  link: PresentedLink,
  audit: AuditContext,
): Promise<EmailChangeResult> {
  try {
    const result = await deps.db.transaction().execute(async (trx): Promise<EmailChangeResult> => {
      const row = await findUserById(trx, userId);
      if (row === undefined || row.pending_email === null) return 'no_pending';
      const pending = row.pending_email;
      const check = checkSignedEmailLink(
        deps.links,
        '/email/change',
        { id: userId, email: pending },
        link,
        audit.now,
      );
      if (check !== 'valid') return check;
      const holder = await findUserByEmail(trx, pending);
      if (holder !== undefined && holder.id !== userId) return 'email_taken';
      if (!(await switchToPendingEmail(trx, userId, pending, audit.now))) return 'no_pending';
      await deps.mailing.queue.enqueue(
        trx,
        emailChangedMessage(deps.mailing.context, recipientFor(toUser(row), row.locale), {
          newEmail: pending,
          at: audit.now,
        }),
      );
      await recordAudit(trx, 'user.email_changed', audit, userId, {
        from: row.email,
        to: pending,
        verified: true,
      });
      return 'changed';
    });
    if (result === 'changed') deps.mailing.queue.wake();
    return result;
  } catch (error) {
    if (isUniqueViolation(error)) return 'email_taken';
    throw error;
  }
}

/** The address waiting for its link, if any (the account page shows it with a cancel button). */
export async function pendingEmailOf(db: Kysely<Database>, userId: number): Promise<string | null> {
  return (await findUserById(db, userId))?.pending_email ?? null;
}
