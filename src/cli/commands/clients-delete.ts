import { type CommandArgs, CommandError, type CommandIO } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

/** `clients:delete`: the client and everything issued to it; its access tokens are refused at once. */
export async function run({ values, positionals }: CommandArgs, io: CommandIO): Promise<number> {
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
}
