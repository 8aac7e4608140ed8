import { clientJson, clientText } from '../client-output.ts';
import { type Command, CommandError } from '../command.ts';
import { withServices } from '../services.ts';

export const clientsShowCommand: Command = {
  name: 'clients:show',
  summary: 'Show one OpenID Connect client',
  usage: 'gatehouse clients:show <client_id> [--json]',
  argumentHelp: { '<client_id>': 'The client_id clients:create printed' },
  allowPositionals: true,
  options: { json: { type: 'boolean' } },
  optionHelp: { json: 'Print the client as JSON' },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1)
      throw new CommandError('Usage: gatehouse clients:show <client_id> [--json]');
    return withServices(
      io,
      async ({ oauth }) => {
        const client = await oauth.clients.find(positionals[0]!);
        if (client === null) throw new CommandError(`No client has the id ${positionals[0]}.`);
        io.stdout.write(
          values['json'] ? `${JSON.stringify(clientJson(client), null, 2)}\n` : `${clientText(client)}\n`,
        );
        return 0;
      },
      { migrate: true },
    );
  },
};
