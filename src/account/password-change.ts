import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/audit.ts';
import { newPasswordField } from '../auth/passwords/password-policy.ts';
import type { PasswordHasher } from '../auth/passwords/passwords.ts';
import { revokeRememberTokens } from '../auth/remember-me/remember-me.ts';
import { destroyUserSessions } from '../auth/sessions/sessions.ts';
import { deleteTokens } from '../auth/tokens/access-tokens.repository.ts';
import type { Database } from '../db/schema.ts';
import { field, rules } from '../lib/validation.ts';
import type { Mailing } from '../mail/mailing.ts';
import { recipientFor } from '../mail/messages.ts';
import { endProviderSessionsOf } from '../oauth/provider-sessions.ts';
import { toUser } from '../users/user.ts';
import { findUserById, updateUser } from '../users/users.repository.ts';
import { passwordUpdatedMessage } from './mails.ts';
import type { CheckPassword, PasswordCheck, PasswordCheckContext } from './password-check.ts';

/** PUT /user/password (docs/guides/account.md): the current password, and a new one by the rules of registration. */
export const passwordChangeSchema = {
  current_password: field.required(rules.string(), rules.max(4096)),
  password: newPasswordField(),
};

export interface PasswordChangeDeps {
  readonly db: Kysely<Database>;
  readonly hasher: PasswordHasher;
  readonly mailing: Mailing;
  readonly checkPassword: CheckPassword;
  /** PASSWORD_CHANGE_REVOKES_TOKENS: API tokens end too (they survive by default, as in Jetstream). */
  readonly revokesTokens: boolean;
}

/**
 * Changes the password after checking the current one (counted like a login attempt). In the same
 * transaction EVERY session (web and panel) and EVERY remember-me token of the user end — Jetstream
 * forgot the remember tokens (#1139), so a stolen "remember me" cookie outlived the change. The
 * caller then signs this browser in again under a fresh session id (and a fresh remember-me token if
 * it had one), which is what "this browser stays logged in" means without keeping any old secret.
 */
export async function changePassword(
  deps: PasswordChangeDeps,
  userId: number,
  input: { readonly current_password: string; readonly password: string },
  locale: string,
  audit: PasswordCheckContext,
): Promise<PasswordCheck> {
  const check = await deps.checkPassword(userId, input.current_password, audit);
  if (check.status !== 'ok') return check;
  const hash = await deps.hasher.hash(input.password);
  await deps.db.transaction().execute(async (trx) => {
    const row = await findUserById(trx, userId);
    if (row === undefined) return;
    await updateUser(trx, userId, { password: hash, updated_at: audit.now });
    const sessions = await destroyUserSessions(trx, userId);
    await endProviderSessionsOf(trx, userId, audit.now, 'revoked');
    const remembered = await revokeRememberTokens(trx, userId);
    const tokens = deps.revokesTokens ? await deleteTokens(trx, userId) : 0;
    await deps.mailing.queue.enqueue(
      trx,
      passwordUpdatedMessage(deps.mailing.context, recipientFor(toUser(row), locale), audit.now),
    );
    await recordAudit(trx, 'user.password_changed', audit, userId, {
      sessions_ended: sessions,
      remember_tokens_revoked: remembered,
      api_tokens_revoked: tokens,
    });
  });
  deps.mailing.queue.wake();
  return check;
}
