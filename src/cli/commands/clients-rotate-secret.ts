import { clientJson } from '../client-output.ts';
import { type CommandArgs, CommandError, type CommandIO } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

/** `clients:rotate-secret`: a new secret, printed once; the old one stops working at once. */
export async function run({ values, positionals }: CommandArgs, io: CommandIO): Promise<number> {
  if (positionals.length !== 1)
    throw new CommandError('Usage: gatehouse clients:rotate-secret <client_id> [--json]');
  const clientId = positionals[0]!;
  return withServices(
    io,
    async (services) => {
      const result = await services.oauth.clients.rotateSecret(clientId, commandAudit(services));
      if (result === null) throw new CommandError(`No client has the id ${clientId}.`);
      if (result === 'public') throw new CommandError(`${clientId} is a public client: it has no secret.`);
      if (values['json']) {
        io.stdout.write(`${JSON.stringify(clientJson(result.client, result.secret), null, 2)}\n`);
      } else {
        io.stdout.write(
          `New secret for ${clientId}: ${result.secret}\nStore it now: it is not shown again.\n`,
        );
      }
      return 0;
    },
    { migrate: true },
  );
}
