import type { Config } from '../config.ts';
import { logTransport, type MailTerminal } from './log-transport.ts';
import { smtpTransport } from './smtp-transport.ts';
import type { MailLog, Transport } from './transport.ts';

/**
 * The configured mailer (MAIL_MAILER). `log` is read through a getter so the server can hand over its
 * own logger once Fastify has built it; `terminal`, where the log mailer shows each mail's link to a
 * developer (server.ts).
 */
export function createMailer(config: Config, log: () => MailLog, terminal?: MailTerminal): Transport {
  if (config.mail.mailer === 'smtp') {
    // EHLO with our own host name, not the OS's: it is what receiving servers see and log.
    return smtpTransport(config.mail, new URL(config.appUrl).hostname);
  }
  return logTransport(config.mail, config.storagePath, log, terminal);
}
