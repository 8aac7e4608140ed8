import type { Db } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { MailMessage } from '../mail/message.ts';
import { appLink, build, formatDate, type MailContext } from '../mail/messages.ts';
import type { User } from '../users/user.ts';

/**
 * A passkey was added to or removed from the account: told to the owner at once, so that a passkey
 * planted through a stolen session (it would outlive a password change) does not go unnoticed. In the
 * user's language. The passkey's name is the user's own text: it is left out, with the display name,
 * while the address is not verified (docs/security.md: no chosen text in mail to an unproven address).
 */
export function passkeyNoticeMessage(
  context: MailContext,
  user: Pick<User, 'email' | 'name' | 'locale' | 'emailVerifiedAt'>,
  notice: { event: 'added' | 'removed'; passkeyName: string; at: number },
): MailMessage {
  const verified = user.emailVerifiedAt !== null;
  const to = verified
    ? { email: user.email, name: user.name, locale: user.locale }
    : { email: user.email, locale: user.locale };
  return build(context, 'passkey-notice', to, [], (t, locale) => ({
    subject: t(`passkeys.mail.${notice.event}.subject`),
    intro: [
      t(`passkeys.mail.${notice.event}.${verified ? 'intro' : 'intro_unnamed'}`, {
        app: context.brand.appName,
        name: notice.passkeyName,
        date: formatDate(notice.at, locale),
      }),
      t('passkeys.mail.not_you'),
    ],
    action: { label: t('passkeys.mail.action'), url: appLink(context.brand, '/profile#passkeys') },
    outro: [],
  }));
}

/** Queues the notice in the transaction of the change it reports: the mail exists exactly when the change does. */
export function queuePasskeyNotice(
  trx: Db,
  mailing: Mailing,
  user: Pick<User, 'email' | 'name' | 'locale' | 'emailVerifiedAt'>,
  notice: { event: 'added' | 'removed'; passkeyName: string; at: number },
): Promise<number> {
  return mailing.queue.enqueue(trx, passkeyNoticeMessage(mailing.context, user, notice));
}
