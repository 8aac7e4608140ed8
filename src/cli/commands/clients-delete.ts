import { type Command, CommandError } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

/** `clients:delete`: the client and everything issued to it; its access tokens are refused at once. */
export const clientsDeleteCommand: Command = {
  name: 'clients:delete',
  summary: 'Delete an OpenID Connect client and revoke everything issued to it',
  usage: 'gatehouse clients:delete <client_id> [--json]',
  argumentHelp: { '<client_id>': 'The client to delete' },
  allowPositionals: true,
  options: { json: { type: 'boolean' } },
  optionHelp: { json: 'Print the result as JSON' },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1)
      throw new CommandError('Usage: gatehouse clients:delete <client_id> [--json]');
    const clientId = positionals[0]!;
    return withServices(
      io,
      async (services) => {
        const deleted = await services.oauth.clients.delete(clientId, commandAudit(services));
        if (!deleted) throw new CommandError(`No client has the id ${clientId}.`);
        io.stdout.write(
          values['json']
            ? `${JSON.stringify({ client_id: clientId, deleted: true })}\n`
            : `Client ${clientId} deleted; its tokens no longer work.\n`,
        );
        return 0;
      },
      { migrate: true },
    );
  },
};
