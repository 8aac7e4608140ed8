import { setPanelAccess } from '../../admin/user-actions.ts';
import { isEmail } from '../../lib/validation.ts';
import { normaliseEmail, toUser } from '../../users/user.ts';
import { findUserByEmail } from '../../users/users.repository.ts';
import { CommandError, type CommandRun } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

/**
 * `admin:grant <email>` / `admin:revoke <email>`: set or clear the panel-access flag of an existing
 * user through the same domain function (and audit event) as the panel's buttons; the actor of a
 * command-line change is recorded as nobody (shown as "Command line").
 */
export function panelAccess(grant: boolean): CommandRun {
  const name = grant ? 'admin:grant' : 'admin:revoke';
  return async ({ positionals }, io) => {
    if (positionals.length !== 1) throw new CommandError(`Usage: gatehouse ${name} <email>`);
    const email = normaliseEmail(positionals[0]!);
    if (!isEmail(email)) throw new CommandError(`"${positionals[0]}" is not a valid e-mail address.`);
    return withServices(
      io,
      async (services) => {
        const { config, database, auth } = services;
        const row = await findUserByEmail(database.db, email);
        if (row === undefined) throw new CommandError(`No user has the e-mail address ${email}.`);
        const user = toUser(row);
        if (grant && user.disabledAt !== null) {
          throw new CommandError(`${email} is disabled; enable the account in the panel first.`);
        }
        if (grant && !auth.canAccessPanel({ ...user, panelAccess: true })) {
          throw new CommandError(
            `${email} is outside PANEL_EMAIL_DOMAINS (${config.panelEmailDomains.join(', ')}); the panel would still refuse it.`,
          );
        }
        const result = await setPanelAccess(database.db, user.id, grant, commandAudit(services), 'cli');
        if (result === 'unchanged') {
          io.stdout.write(grant ? `${email} already has panel access.\n` : `${email} has no panel access.\n`);
        } else {
          io.stdout.write(
            grant
              ? `Panel access granted: ${email} may now log in at ${config.appUrl}/admin/login\n`
              : `Panel access withdrawn from ${email}.\n`,
          );
        }
        return 0;
      },
      { migrate: true },
    );
  };
}
