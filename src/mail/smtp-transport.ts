import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { MailConfig } from '../config.ts';
import { type MailMessage, redactSecrets } from './message.ts';
import { DeliveryError, mailOptions, type SendResult, type Transport } from './transport.ts';

/** Each phase of an SMTP exchange may stall at most this long: a dead server must not hold the worker. */
const TIMEOUT_MS = 10_000;

export function smtpOptions(config: MailConfig, ehloName: string): SMTPTransport.Options {
  return {
    host: config.host,
    port: config.port,
    // Implicit TLS only when asked for (port 465). Otherwise STARTTLS is used whenever the server
    // offers it, without requiring it: MAIL_ENCRYPTION=none turns the upgrade off entirely.
    secure: config.encryption === 'tls',
    requireTLS: false,
    ignoreTLS: config.encryption === 'none',
    auth: config.username ? { user: config.username, pass: config.password ?? '' } : undefined,
    name: ehloName,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    dnsTimeout: TIMEOUT_MS,
    logger: false,
    debug: false,
  };
}

/** Sends through MAIL_HOST:MAIL_PORT; one connection per message, so an outage never leaves a stale pool. */
export function smtpTransport(config: MailConfig, ehloName: string): Transport {
  const transporter = nodemailer.createTransport(smtpOptions(config, ehloName));
  return {
    name: 'smtp',
    async send(message: MailMessage): Promise<SendResult> {
      try {
        const info = await transporter.sendMail(mailOptions(message, config));
        return {
          accepted: info.accepted.map(addressOf),
          rejected: info.rejected.map(addressOf),
          response: info.response,
          messageId: info.messageId,
        };
      } catch (error) {
        throw toDeliveryError(error, message);
      }
    },
    close: () => transporter.close(),
  };
}

function addressOf(entry: string | { address: string }): string {
  return typeof entry === 'string' ? entry : entry.address;
}

function toDeliveryError(error: unknown, message: MailMessage): DeliveryError {
  const detail = error as { message?: unknown; code?: unknown; responseCode?: unknown };
  // A server may echo parts of the message back in its reply; blank the secrets before anyone stores it.
  const text = redactSecrets(String(detail.message ?? error), message.secrets)
    .replace(/\s+/g, ' ')
    .slice(0, 500);
  return new DeliveryError(
    text,
    typeof detail.code === 'string' ? detail.code : undefined,
    typeof detail.responseCode === 'number' ? detail.responseCode : undefined,
  );
}
