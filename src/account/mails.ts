import type { MailMessage } from '../mail/message.ts';
import { appLink, build, formatDate, type MailContext, type Recipient } from '../mail/messages.ts';

/**
 * The mails of account self-service (docs/guides/account.md). The link to a new address carries no name: that
 * address is not proven to be the user's yet, and a user-chosen name in a mail to an unproven address
 * would let anyone send text of their choice through us (docs/security.md).
 */
export function emailChangeMessage(
  context: MailContext,
  to: Omit<Recipient, 'name'>,
  link: { url: string; signature: string; expiresInMinutes: number },
): MailMessage {
  return build(context, 'email-change', to, [link.signature], (t) => ({
    subject: t('account_mail.change.subject'),
    intro: [t('account_mail.change.intro', { app: context.brand.appName })],
    introText: [t('account_mail.change.intro_text', { app: context.brand.appName })],
    action: { label: t('account_mail.change.action'), url: link.url },
    outro: [
      t('account_mail.change.expiry', { count: link.expiresInMinutes }),
      t('account_mail.change.outro'),
    ],
  }));
}

/**
 * To the *current* address as soon as a change is asked for (ASVS V3.7.1): a stolen session cannot move
 * the account to another mailbox unnoticed, and the owner can stop it with the link, which works
 * without signing in (its signature names the account and the address asked for).
 */
export function emailChangeRequestedMessage(
  context: MailContext,
  to: Recipient,
  change: { newEmail: string; at: number; cancelUrl: string; signature: string; expiresInMinutes: number },
): MailMessage {
  return build(context, 'email-change-requested', to, [change.signature], (t, locale) => ({
    subject: t('account_mail.change_requested.subject'),
    intro: [
      t('account_mail.change_requested.intro', {
        app: context.brand.appName,
        email: change.newEmail,
        date: formatDate(change.at, locale),
      }),
      t('account_mail.change_requested.not_you'),
    ],
    action: { label: t('account_mail.change_requested.action'), url: change.cancelUrl },
    outro: [t('account_mail.change.expiry', { count: change.expiresInMinutes })],
  }));
}

/** To the *old* address once the new one is confirmed: a takeover does not go unnoticed. */
export function emailChangedMessage(
  context: MailContext,
  to: Recipient,
  change: { newEmail: string; at: number },
): MailMessage {
  return build(context, 'email-changed', to, [], (t, locale) => ({
    subject: t('account_mail.changed.subject'),
    intro: [
      t('account_mail.changed.intro', {
        app: context.brand.appName,
        email: change.newEmail,
        date: formatDate(change.at, locale),
      }),
      t('account_mail.changed.outro'),
    ],
    outro: [],
  }));
}

export function passwordUpdatedMessage(context: MailContext, to: Recipient, at: number): MailMessage {
  return build(context, 'password-updated', to, [], (t, locale) => ({
    subject: t('account_mail.password.subject'),
    intro: [
      t('account_mail.password.intro', { app: context.brand.appName, date: formatDate(at, locale) }),
      t('account_mail.password.signed_out'),
      t('account_mail.password.outro'),
    ],
    action: { label: t('account_mail.password.action'), url: appLink(context.brand, '/forgot-password') },
    outro: [],
  }));
}

export function accountDeletedMessage(context: MailContext, to: Recipient, at: number): MailMessage {
  return build(context, 'account-deleted', to, [], (t, locale) => ({
    subject: t('account_mail.deleted.subject'),
    intro: [
      t('account_mail.deleted.intro', { app: context.brand.appName, date: formatDate(at, locale) }),
      t('account_mail.deleted.outro'),
    ],
    outro: [],
  }));
}
