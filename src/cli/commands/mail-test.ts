import { isEmail } from '../../lib/validation.ts';
import { MailHeaderError } from '../../mail/message.ts';
import { testMessage } from '../../mail/messages.ts';
import { DeliveryError } from '../../mail/transport.ts';
import { type CommandArgs, CommandError, type CommandIO } from '../command.ts';
import { withServices } from '../services.ts';

/**
 * Sends one test message straight through the configured mailer — not through the outbox — so the
 * operator sees the SMTP server's own answer (or the error) at once.
 */
export async function run({ positionals }: CommandArgs, io: CommandIO): Promise<number> {
  const [address, ...extra] = positionals;
  if (address === undefined || extra.length > 0) {
    throw new CommandError('mail:test needs exactly one address. Usage: gatehouse mail:test <address>');
  }
  if (!isEmail(address)) throw new CommandError(`"${address}" is not a valid e-mail address.`);
  // The worker is not started, so the log mailer's own log line stays silent: the result is printed below.
  return withServices(io, async ({ config, mailer, mailing }) => {
    const message = testMessage(mailing.context, { email: address, locale: config.locale });
    const target =
      config.mail.mailer === 'smtp' ? `smtp://${config.mail.host}:${config.mail.port}` : 'the log mailer';
    try {
      const result = await mailer.send(message);
      io.stdout.write(`Sent "${message.subject}" to ${address} via ${target}.\n`);
      io.stdout.write(`Accepted: ${result.accepted.join(', ') || '(none)'}\n`);
      if (result.rejected.length > 0) io.stdout.write(`Rejected: ${result.rejected.join(', ')}\n`);
      io.stdout.write(`Response: ${result.response}\n`);
      return result.accepted.length > 0 ? 0 : 1;
    } catch (error) {
      if (error instanceof DeliveryError || error instanceof MailHeaderError) {
        const code =
          error instanceof DeliveryError ? [error.code, error.responseCode].filter(Boolean).join(' ') : '';
        throw new CommandError(`Sending via ${target} failed: ${code ? `${code} ` : ''}${error.message}`);
      }
      throw error;
    }
  });
}
