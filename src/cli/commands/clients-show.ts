import { clientJson, clientText } from '../client-output.ts';
import { type CommandArgs, CommandError, type CommandIO } from '../command.ts';
import { withServices } from '../services.ts';

export async function run({ values, positionals }: CommandArgs, io: CommandIO): Promise<number> {
  if (positionals.length !== 1) throw new CommandError('Usage: gatehouse clients:show <client_id> [--json]');
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
}
