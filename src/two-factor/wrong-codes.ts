import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { Db } from '../db/schema.ts';
import { MINUTE } from '../lib/clock.ts';
import type { MailMessage } from '../mail/message.ts';
import { appLink, build, formatDate, type MailContext, recipientFor } from '../mail/messages.ts';
import type { User } from '../users/user.ts';
import type { TwoFactorDeps } from './two-factor.ts';

/**
 * Consecutive wrong second factors back off (docs/security.md). The challenge's own throttle (five a
 * minute) alone still let someone who knows the password try about 7,000 codes a day, forever: about
 * 2 % a day of guessing one, unseen by the owner. So each account counts its wrong codes in a row (TOTP
 * or recovery code, through any door: web, panel, POST /api/tokens); the tenth refuses its challenges
 * for 15 minutes and mails the owner once. The streak is not reset by the lockout: every wrong code
 * after it, once the 15 minutes are over, locks again (about a hundred tries a day at most). Only a
 * right code ends it. The count lives on the credentials row, so every instance sees it at once.
 */
export const WRONG_CODES_IN_A_ROW = 10;
export const WRONG_CODES_LOCKOUT_MS = 15 * MINUTE;

type Owner = Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>;

/** Milliseconds left of the account's lockout (0: its challenges are open). */
export async function wrongCodesLockout(db: Db, userId: number, now: number): Promise<number> {
  const row = await db
    .selectFrom('two_factor_credentials')
    .select('locked_until')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const until = row?.locked_until == null ? 0 : Number(row.locked_until);
  return Math.max(0, until - now);
}

/**
 * Counts one wrong code. The tenth in a row starts the lockout, its audit row and the owner's mail in
 * one transaction; of concurrent wrong codes exactly one starts it (a conditional UPDATE decides, on
 * the row the increments have locked).
 */
export async function countWrongCode(
  deps: TwoFactorDeps,
  user: Owner,
  channel: string,
  audit: AuditContext,
): Promise<void> {
  const until = audit.now + WRONG_CODES_LOCKOUT_MS;
  const queued = await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('two_factor_credentials')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
      .where('user_id', '=', user.id)
      .execute();
    const lock = trx
      .updateTable('two_factor_credentials')
      .set({ locked_until: until })
      .where('user_id', '=', user.id)
      .where('failed_attempts', '>=', WRONG_CODES_IN_A_ROW);
    const first = await lock.where('locked_until', 'is', null).executeTakeFirst();
    if (first.numUpdatedRows !== 1n) {
      // The same streak after its lockout ran out: locked again, the owner already told.
      await lock.where('locked_until', '<=', audit.now).execute();
      return false;
    }
    await recordAudit(trx, 'two_factor.wrong_codes_lockout', audit, user.id, {
      channel,
      wrong_codes: WRONG_CODES_IN_A_ROW,
      locked_until: until,
    });
    await deps.mailing.queue.enqueue(trx, lockoutMessage(deps.mailing.context, user, audit.now));
    return true;
  });
  if (queued) deps.mailing.queue.wake();
}

/** A right code ends the streak (one conditional write, none when there was no streak). */
export async function endWrongCodeStreak(db: Db, userId: number): Promise<void> {
  await db
    .updateTable('two_factor_credentials')
    .set({ failed_attempts: 0, locked_until: null })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('failed_attempts', '>', 0), eb('locked_until', 'is not', null)]))
    .execute();
}

/** To the owner: the password was right, the code was not, ten times; what to do if it was not them. */
function lockoutMessage(context: MailContext, user: Owner, at: number): MailMessage {
  return build(context, 'two-factor-lockout', recipientFor(user, user.locale), [], (t, locale) => ({
    subject: t('two_factor.mail.wrong_codes.subject'),
    intro: [
      t('two_factor.mail.wrong_codes.intro', {
        app: context.brand.appName,
        date: formatDate(at, locale),
        count: WRONG_CODES_IN_A_ROW,
        minutes: WRONG_CODES_LOCKOUT_MS / MINUTE,
      }),
      t('two_factor.mail.wrong_codes.not_you'),
    ],
    action: { label: t('two_factor.mail.action'), url: appLink(context.brand, '/profile') },
    outro: [],
  }));
}
