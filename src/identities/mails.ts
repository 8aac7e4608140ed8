import type { Db } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { MailMessage } from '../mail/message.ts';
import { appLink, build, formatDate, type MailContext } from '../mail/messages.ts';
import type { User } from '../users/user.ts';

export interface IdentityNotice {
  readonly event: 'linked' | 'unlinked';
  /** The provider's button text (NAME_LABEL): GitHub, Google … */
  readonly label: string;
  readonly at: number;
}

type Recipient = Pick<User, 'email' | 'name' | 'locale' | 'emailVerifiedAt'>;

/**
 * A provider account was linked to (or unlinked from) the account: told to the owner at once, since a
 * linked account signs in without the password (docs/guides/login-providers.md). In the user's
 * language; no name in `To:` while the address is not verified (docs/security.md).
 */
export function identityNoticeMessage(
  context: MailContext,
  user: Recipient,
  notice: IdentityNotice,
): MailMessage {
  const to =
    user.emailVerifiedAt !== null
      ? { email: user.email, name: user.name, locale: user.locale }
      : { email: user.email, locale: user.locale };
  return build(context, 'identity-notice', to, [], (t, locale) => ({
    subject: t(`identities.mail.${notice.event}.subject`, { provider: notice.label }),
    intro: [
      t(`identities.mail.${notice.event}.intro`, {
        app: context.brand.appName,
        provider: notice.label,
        date: formatDate(notice.at, locale),
      }),
      t('identities.mail.not_you'),
    ],
    action: {
      label: t('identities.mail.action'),
      url: appLink(context.brand, '/profile/security#linked-accounts'),
    },
    outro: [],
  }));
}

/** Queued in the transaction of the change it reports: the mail exists exactly when the change does. */
export function queueIdentityNotice(trx: Db, mailing: Mailing, user: Recipient, notice: IdentityNotice) {
  return mailing.queue.enqueue(trx, identityNoticeMessage(mailing.context, user, notice));
}
