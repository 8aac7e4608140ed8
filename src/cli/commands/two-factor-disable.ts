import { isEmail } from '../../lib/validation.ts';
import { normaliseEmail, toUser } from '../../users/user.ts';
import { findUserByEmail } from '../../users/users.repository.ts';
import { type CommandArgs, CommandError, type CommandIO } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

/**
 * `two-factor:disable --email E`: the way back in for someone who lost both their phone and their
 * recovery codes (or for every user after APP_KEY was lost: sealed secrets cannot be opened again).
 * The same use case as the account page and the panel: the secret and codes are deleted, an audit
 * row (actor: the command line) is written and the owner gets a mail.
 */
export async function run({ values }: CommandArgs, io: CommandIO): Promise<number> {
  const given = values['email'];
  if (typeof given !== 'string' || given.trim() === '')
    throw new CommandError('Usage: gatehouse two-factor:disable --email ADDRESS');
  const email = normaliseEmail(given);
  if (!isEmail(email)) throw new CommandError(`"${given}" is not a valid e-mail address.`);
  return withServices(
    io,
    async (services) => {
      const { database, auth, outbox } = services;
      const row = await findUserByEmail(database.db, email);
      if (row === undefined) throw new CommandError(`No user has the e-mail address ${email}.`);
      const user = toUser(row);
      const turnedOff = await auth.twoFactor.disable(user, 'cli', commandAudit(services));
      if (!turnedOff) {
        io.stdout.write(`${email} has no two-factor authentication.\n`);
        return 0;
      }
      // The notice mail is in the outbox; deliver it now rather than leave it to a running server.
      await outbox.drain();
      io.stdout.write(`Two-factor authentication turned off for ${email}.\n`);
      return 0;
    },
    { migrate: true },
  );
}
