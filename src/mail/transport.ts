import type Mail from 'nodemailer/lib/mailer/index.js';
import type { MailConfig } from '../config.ts';
import { assertSafeAddress, checkMessage, type MailMessage, safeDisplayName } from './message.ts';

/** What a transport reports for one message: the SMTP answer, or where the log mailer wrote it. */
export interface SendResult {
  readonly accepted: readonly string[];
  readonly rejected: readonly string[];
  readonly response: string;
  readonly messageId: string;
  /** The log mailer's .eml file. */
  readonly file?: string;
}

/** What the mail code logs through (Fastify's app.log fits). */
export type { Log as MailLog } from '../lib/log.ts';

export interface Transport {
  readonly name: 'smtp' | 'log';
  send(message: MailMessage): Promise<SendResult>;
  close(): void;
}

/**
 * A send failure, carrying only what is safe to store and log: nodemailer's error code, the SMTP
 * reply code, and a message with the secrets of the mail blanked out.
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly responseCode: number | undefined,
  ) {
    super(message);
  }

  /** 5xx replies to a message (not to the connection) will not get better by retrying. */
  get permanent(): boolean {
    return this.responseCode !== undefined && this.responseCode >= 500 && this.responseCode < 600;
  }

  /** The connection itself failed: other queued mails would fail the same way right now. */
  get connectionLevel(): boolean {
    return ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EAUTH', 'ECONNREFUSED'].includes(
      this.code ?? '',
    );
  }
}

/** Everything nodemailer gets for one message. Both transports compose the same MIME message. */
export function mailOptions(message: MailMessage, config: MailConfig): Mail.Options {
  const checked = checkMessage(message);
  const fromName = safeDisplayName(config.fromName);
  return {
    from: { name: fromName ?? '', address: assertSafeAddress(config.fromAddress) },
    to: checked.to.name ? { name: checked.to.name, address: checked.to.address } : checked.to.address,
    subject: checked.subject,
    text: checked.text,
    html: checked.html,
    // RFC 3834: marks the mail as automatic, so auto-responders do not answer it.
    headers: { 'Auto-Submitted': 'auto-generated' },
    // Nothing in a message may make nodemailer read a file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}
