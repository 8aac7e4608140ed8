import type { Kysely } from 'kysely';
import { ownerId } from '../admin/owner.ts';
import { forgetAddresses } from '../audit/audit.repository.ts';
import { type AuditContext, type AuditEvent, recordAudit } from '../audit/audit.ts';
import type { Database, Db } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import { dropUndelivered } from '../mail/outbox.repository.ts';
import { endProviderSessionsOf } from '../oauth/provider-sessions.ts';
import { toUser, type User } from '../users/user.ts';
import { deleteUserRow, findUserRows, panelUserIds } from '../users/users.repository.ts';
import type { UserRow } from '../users/users.table.ts';
import { accountDeletedMessage } from './mails.ts';
import type { CheckPassword, PasswordCheck, PasswordCheckContext } from './password-check.ts';

/** DELETE /user (docs/guides/account.md): the password, now. */

export interface AccountDeletionDeps {
  readonly db: Kysely<Database>;
  readonly mailing: Mailing;
  /** The panel-access check (auth/panel-access.ts): who counts towards "the last admin". */
  readonly canAccessPanel: (user: User) => boolean;
  /**
   * What other features must do in the deletion's transaction before the user row goes (orgs: leave
   * every organization, deleting those the user alone owned).
   */
  readonly beforeDelete?: (trx: Db, userId: number, audit: AuditContext) => Promise<void>;
}

/** How a deletion came about: its audit event, and the goodbye mail's language (null: no mail). */
export interface DeletionDoor {
  readonly event: Extract<AuditEvent, 'user.deleted' | 'admin.user.deleted'>;
  readonly goodbyeLocale: string | null;
}

export type DeletionResult = 'deleted' | 'owner' | 'last_admin' | 'not_found';

/**
 * Deletes an account and everything that belongs to it, in ONE transaction — the one use case behind
 * both doors (DELETE /user, the panel's delete):
 * - the user row goes, and with it (ON DELETE CASCADE, every dialect) its sessions of every guard,
 *   remember-me tokens, API tokens, reset token, two-factor credentials and posts; the pending address
 *   lives on the row;
 * - mail not yet delivered to the address, or to the pending one (a change link), is dropped;
 * - audit rows stay, with the user's id, but lose every address (audit.repository forgetAddresses);
 * - a goodbye mail goes to the address (outbox, same transaction) when the door asks for one.
 *
 * Refused: the installation's owner (docs/security.md), and the last user with panel access (nobody could
 * administer the installation any more). The rows of every panel user are locked first, in id order,
 * so two admins deleting themselves at once cannot both see the other one still there.
 */
export async function deleteAccount(
  deps: AccountDeletionDeps,
  userId: number,
  door: DeletionDoor,
  audit: AuditContext,
): Promise<DeletionResult> {
  const result = await deps.db.transaction().execute(async (trx): Promise<DeletionResult> => {
    const check = await deletable(deps, trx, userId, { lock: true });
    if (check.refusal !== null) return check.refusal;
    const { row } = check;
    const addresses = row.pending_email === null ? [row.email] : [row.email, row.pending_email];
    await forgetAddresses(trx, userId, addresses);
    for (const address of addresses) await dropUndelivered(trx, address);
    await deps.beforeDelete?.(trx, userId, audit);
    // Audited before the row goes: the user.deleted webhook event (docs/guides/webhooks.md) is written by
    // recordAudit in this transaction and reads the account's address and name from the row.
    await recordAudit(trx, door.event, audit, userId);
    await deleteUserRow(trx, userId);
    await endProviderSessionsOf(trx, userId, audit.now, 'revoked');
    if (door.goodbyeLocale !== null) {
      // docs/security.md: a mail to an address never verified carries no user-chosen text (the name).
      const name = row.email_verified_at === null ? undefined : row.name;
      await deps.mailing.queue.enqueue(
        trx,
        accountDeletedMessage(
          deps.mailing.context,
          { email: row.email, name, locale: door.goodbyeLocale },
          audit.now,
        ),
      );
    }
    return 'deleted';
  });
  if (result === 'deleted' && door.goodbyeLocale !== null) deps.mailing.queue.wake();
  return result;
}

/**
 * The rule, read once for both uses: whether `userId` may be deleted, and its row. With `lock`, the
 * rows of the user and of every panel user are locked (in id order) for the rest of the transaction.
 */
async function deletable(
  deps: Pick<AccountDeletionDeps, 'canAccessPanel'>,
  db: Db,
  userId: number,
  options: { lock: boolean },
): Promise<{ refusal: Exclude<DeletionResult, 'deleted'>; row?: never } | { refusal: null; row: UserRow }> {
  const rows = await findUserRows(db, [...new Set([userId, ...(await panelUserIds(db))])], options);
  const row = rows.find((r) => r.id === userId);
  if (row === undefined) return { refusal: 'not_found' };
  if ((await ownerId(db)) === userId) return { refusal: 'owner' };
  const isAdmin = (r: UserRow) => deps.canAccessPanel(toUser(r));
  if (isAdmin(row) && !rows.some((r) => r.id !== userId && isAdmin(r))) return { refusal: 'last_admin' };
  return { refusal: null, row };
}

/** Why the account cannot be deleted right now (the page says so instead of offering the form), or null. */
export async function deletionRefusal(
  deps: AccountDeletionDeps,
  userId: number,
): Promise<'owner' | 'last_admin' | null> {
  const { refusal } = await deletable(deps, deps.db, userId, { lock: false });
  return refusal === 'owner' || refusal === 'last_admin' ? refusal : null;
}

export type OwnDeletionResult =
  | Exclude<PasswordCheck, { status: 'ok' }>
  | { readonly status: DeletionResult };

/**
 * DELETE /user: the user's own password first (counted like a login attempt, password-check.ts), so
 * an open session alone cannot destroy the account; then the deletion, with a goodbye mail in the
 * language of this request (docs/guides/sessions-and-spas.md: mails a request triggers directly speak its language).
 */
export async function deleteOwnAccount(
  deps: AccountDeletionDeps & {
    readonly checkPassword: CheckPassword;
  },
  userId: number,
  password: string,
  locale: string,
  audit: PasswordCheckContext,
): Promise<OwnDeletionResult> {
  const check = await deps.checkPassword(userId, password, audit);
  if (check.status !== 'ok') return check;
  return {
    status: await deleteAccount(deps, userId, { event: 'user.deleted', goodbyeLocale: locale }, audit),
  };
}
