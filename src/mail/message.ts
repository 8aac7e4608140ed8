import { isEmail } from '../lib/validation.ts';

export type MailKind =
  | 'verify-email'
  | 'reset-password'
  | 'password-changed'
  | 'invitation'
  | 'test'
  | 'two-factor-notice'
  | 'two-factor-lockout'
  // Account self-service (account/mails.ts)
  | 'email-change'
  | 'email-change-requested'
  | 'email-changed'
  | 'password-updated'
  | 'account-deleted'
  // Passkeys (passkeys/mails.ts)
  | 'passkey-notice'
  // Login providers (identities/mails.ts)
  | 'identity-notice'
  // Organizations (orgs/mails.ts)
  | 'org-invitation';

export interface MailAddress {
  readonly address: string;
  readonly name?: string;
}

/** A rendered mail, ready for any transport. The sender is added by the mailer from MAIL_FROM_*. */
export interface MailMessage {
  readonly kind: MailKind;
  readonly to: MailAddress;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly locale: string;
  /**
   * The link the mail asks its reader to open (its button), when it has one: the log mailer shows it
   * on a developer's terminal (log-transport.ts). It holds the mail's secrets; never log it.
   */
  readonly action?: { readonly label: string; readonly url: string };
  /**
   * Substrings that grant access (a reset token, a link signature). They travel with the message
   * (inside the encrypted outbox payload) only so that logs can blank them out.
   */
  readonly secrets: readonly string[];
}

export class MailHeaderError extends Error {
  constructor(detail: string) {
    super(`Unsafe mail header: ${detail}`);
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to match control characters
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/g;

/**
 * A display name is only decoration, so line breaks and other control characters are turned into
 * spaces instead of refusing the mail: a user whose stored name is odd still gets their reset link.
 * Nodemailer then encodes the rest (RFC 2047), so no character of a name can start a new header.
 */
export function safeDisplayName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const cleaned = name.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
  return cleaned === '' ? undefined : cleaned;
}

/**
 * An address is where the mail goes, so a malformed one is refused outright rather than repaired:
 * CR/LF, commas or angle brackets would otherwise add recipients or headers.
 */
export function assertSafeAddress(address: string): string {
  if (!isEmail(address) || /[\r\n]/.test(address)) {
    throw new MailHeaderError(
      `"${address.replace(CONTROL, '?').slice(0, 80)}" is not a single e-mail address`,
    );
  }
  return address;
}

/** Checks every header-bound field of a message; returns it with a cleaned display name. */
export function checkMessage(message: MailMessage): MailMessage {
  assertSafeAddress(message.to.address);
  if (/[\r\n]/.test(message.subject)) throw new MailHeaderError('the subject contains a line break');
  const name = safeDisplayName(message.to.name);
  return { ...message, to: name === undefined ? { address: message.to.address } : { ...message.to, name } };
}

/** Replaces every secret in `text` (for log lines; the secrets are link tokens and signatures). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('[redacted]');
  return out;
}
