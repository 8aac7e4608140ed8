import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import nodemailer from 'nodemailer';
import type { MailConfig } from '../config.ts';
import { privateDirectory } from '../lib/private-files.ts';
import { type MailMessage, redactSecrets } from './message.ts';
import { type MailLog, mailOptions, type SendResult, type Transport } from './transport.ts';

/**
 * Where a developer watching `npm start` sees each mail's link (server.ts decides when there is one).
 * Never a log: the link is the mail's secret, and logs travel and last far longer than a terminal.
 */
export type MailTerminal = (text: string) => void;

/**
 * The embedded default mailer. Each message is composed exactly as SMTP would send it and written,
 * whole, as an .eml file under storage/mail/ (mode 0600: it holds working links), plus one log line.
 *
 * Documented deviation from "the whole mail to the log": the log line carries the headers and the
 * text part with reset tokens and link signatures blanked out, and names the .eml file. Logs are
 * shipped and kept far more widely than a 0600 file, and docs/guides/operations.md forbids reset tokens in them.
 */
export function logTransport(
  config: MailConfig,
  storagePath: string,
  log: () => MailLog,
  terminal?: MailTerminal,
): Transport {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const folder = join(storagePath, 'mail');
  return {
    name: 'log',
    async send(message: MailMessage): Promise<SendResult> {
      const info = await composer.sendMail(mailOptions(message, config));
      const raw = info.message as Buffer;
      // storage/ and storage/mail are the owner's alone (docs/security.md), also when they existed.
      privateDirectory(storagePath);
      privateDirectory(folder);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = join(folder, `${stamp}-${message.kind}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, raw, { mode: 0o600 });
      const shown = relative(join(storagePath, '..'), file);
      log().info(
        {
          mail: {
            kind: message.kind,
            to: message.to.address,
            subject: message.subject,
            locale: message.locale,
            message_id: info.messageId,
            file: shown,
            text: redactSecrets(message.text, message.secrets),
          },
        },
        `mail written to ${shown} (link secrets redacted in this log line; the .eml holds the whole message)`,
      );
      terminal?.(terminalLines(message, shown));
      return {
        accepted: [message.to.address],
        rejected: [],
        response: `written to ${file}`,
        messageId: info.messageId,
        file,
      };
    },
    close() {},
  };
}

/**
 * "Mail to ada@example.com — Verify Email Address" and the link on its own line, whole and unencoded
 * (terminals make it clickable), unlike the .eml, whose quoted-printable text breaks links at 76
 * characters.
 */
export function terminalLines(message: MailMessage, file: string): string {
  const head = `Mail to ${message.to.address} — ${message.subject} (${file})`;
  return message.action ? `${head}\n  ${message.action.label}: ${message.action.url}\n` : `${head}\n`;
}
