import type { I18n } from '../i18n/i18n.ts';
import { asLocale } from '../i18n/locales.ts';
import { type Brand, type MailContent, renderHtml, renderText } from './layout.ts';
import { checkMessage, type MailKind, type MailMessage, safeDisplayName } from './message.ts';

/** What every builder needs: the brand (APP_NAME, APP_URL) and the translations. */
export interface MailContext {
  readonly brand: Brand;
  readonly i18n: I18n;
}

export interface Recipient {
  readonly email: string;
  readonly name?: string;
  /** The recipient's language; unknown values fall back to the default locale. */
  readonly locale: string;
}

/**
 * The recipient of a mail to an account's address, named only once that address is verified
 * (docs/security.md). Until then anyone may have typed it — a registration or an e-mail change needs no
 * proof of the mailbox — and the name is their free text: mailed to a stranger's address, it would
 * make our mail the carrier of an attacker's words (spam, phishing lines) under our brand.
 */
export function recipientFor(
  user: { readonly email: string; readonly name: string; readonly emailVerifiedAt: number | null },
  locale: string,
): Recipient {
  return user.emailVerifiedAt === null
    ? { email: user.email, locale }
    : { email: user.email, name: user.name, locale };
}

/**
 * Links are built from APP_URL only (never from a request's Host or X-Forwarded-Host), so a forged
 * header cannot make us mail a reset link pointing at someone else's server.
 */
export function appLink(brand: Brand, path: string): string {
  return `${brand.appUrl}${path.startsWith('/') ? path : `/${path}`}`;
}

/** `{APP_URL}/reset-password/{token}?email={email}` (docs/guides/sessions-and-spas.md): reset and invitation mails. */
function resetLink(context: MailContext, token: string, email: string): string {
  return appLink(
    context.brand,
    `/reset-password/${encodeURIComponent(token)}?email=${encodeURIComponent(email)}`,
  );
}

/** To an address not verified yet, by definition: no name (recipientFor). */
export function verifyEmailMessage(
  context: MailContext,
  to: Omit<Recipient, 'name'>,
  link: { url: string; signature: string; expiresInMinutes: number },
): MailMessage {
  return build(context, 'verify-email', to, [link.signature], (t) => ({
    subject: t('mail.verify.subject'),
    intro: [t('mail.verify.intro')],
    introText: [t('mail.verify.intro_text')],
    action: { label: t('mail.verify.action'), url: link.url },
    outro: [t('mail.verify.expiry', { count: link.expiresInMinutes }), t('mail.verify.outro')],
  }));
}

export function resetPasswordMessage(
  context: MailContext,
  to: Recipient,
  token: string,
  expiresInMinutes: number,
): MailMessage {
  const url = resetLink(context, token, to.email);
  return build(context, 'reset-password', to, [token], (t) => ({
    subject: t('mail.reset.subject'),
    intro: [t('mail.reset.intro')],
    action: { label: t('mail.reset.action'), url },
    outro: [t('mail.reset.expiry', { count: expiresInMinutes }), t('mail.reset.outro')],
  }));
}

/**
 * An administrator created an account for this address: the link sets its first password (it is a
 * password reset link, spent the same way). No name in it: the address is not verified yet.
 */
export function invitationMessage(
  context: MailContext,
  to: Omit<Recipient, 'name'>,
  token: string,
  expiresInMinutes: number,
): MailMessage {
  const url = resetLink(context, token, to.email);
  return build(context, 'invitation', to, [token], (t) => ({
    subject: t('mail.invitation.subject', { app: context.brand.appName }),
    intro: [t('mail.invitation.intro', { app: context.brand.appName })],
    action: { label: t('mail.invitation.action'), url },
    outro: [
      t('mail.invitation.expiry', { count: expiresInMinutes }),
      t('mail.invitation.later', { url: appLink(context.brand, '/forgot-password') }),
    ],
  }));
}

export function passwordChangedMessage(context: MailContext, to: Recipient, changedAt: number): MailMessage {
  return build(context, 'password-changed', to, [], (t, locale) => ({
    subject: t('mail.password_changed.subject'),
    intro: [
      t('mail.password_changed.intro', { app: context.brand.appName, date: formatDate(changedAt, locale) }),
      t('mail.password_changed.revoked'),
      t('mail.password_changed.outro'),
    ],
    action: { label: t('mail.password_changed.action'), url: appLink(context.brand, '/forgot-password') },
    outro: [],
  }));
}

/**
 * Two-factor authentication was turned on or off, or a recovery code was spent: told to the owner at
 * once, so that a change they did not make (a stolen session, an admin reset) does not go unnoticed.
 */
export function twoFactorNoticeMessage(
  context: MailContext,
  to: Recipient,
  notice: { event: 'enabled' | 'disabled' | 'recovery_code_used'; at: number; codesLeft?: number },
): MailMessage {
  return build(context, 'two-factor-notice', to, [], (t, locale) => ({
    subject: t(`two_factor.mail.${notice.event}.subject`),
    intro: [
      t(`two_factor.mail.${notice.event}.intro`, {
        app: context.brand.appName,
        date: formatDate(notice.at, locale),
        count: notice.codesLeft ?? 0,
      }),
      t('two_factor.mail.not_you'),
    ],
    action: { label: t('two_factor.mail.action'), url: appLink(context.brand, '/profile') },
    outro: [],
  }));
}

export function testMessage(context: MailContext, to: Recipient): MailMessage {
  return build(context, 'test', to, [], (t) => ({
    subject: t('mail.test.subject', { app: context.brand.appName }),
    intro: [t('mail.test.intro')],
    outro: [t('mail.test.outro')],
  }));
}

type Compose = (
  t: ReturnType<I18n['translator']>,
  locale: string,
) => Omit<MailContent, 'name'> & { subject: string };

/** The one way a mail is put together: locale, translator, safe display name, text and HTML parts. */
export function build(
  context: MailContext,
  kind: MailKind,
  to: Recipient,
  secrets: readonly string[],
  compose: Compose,
): MailMessage {
  const locale = asLocale(to.locale) ?? context.i18n.defaultLocale;
  const t = context.i18n.translator(locale);
  const name = safeDisplayName(to.name);
  const { subject, ...body } = compose(t, locale);
  const content: MailContent = { ...body, name };
  return checkMessage({
    kind,
    ...(body.action ? { action: body.action } : {}),
    to: name === undefined ? { address: to.email } : { address: to.email, name },
    subject: subject.replace(/[\r\n]+/g, ' '),
    text: renderText(content, context.brand, t),
    html: renderHtml(content, context.brand, t, locale),
    locale,
    secrets,
  });
}

/** A date every reader understands without guessing the sender's time zone: UTC, spelled out. */
export function formatDate(ms: number, locale: string): string {
  const formatted = new Intl.DateTimeFormat(locale, {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(new Date(ms));
  return `${formatted} UTC`;
}
