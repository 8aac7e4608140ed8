import { clientJson } from '../client-output.ts';
import { type Command, CommandError } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

/** `clients:rotate-secret`: a new secret, printed once; the old one stops working at once. */
export const clientsRotateSecretCommand: Command = {
  name: 'clients:rotate-secret',
  summary: "Replace a confidential client's secret",
  usage: 'gatehouse clients:rotate-secret <client_id> [--json]',
  description: 'The old secret stops working at once; the new one is printed once (only its hash is kept).',
  argumentHelp: { '<client_id>': 'A confidential client' },
  allowPositionals: true,
  options: { json: { type: 'boolean' } },
  optionHelp: { json: 'Print the result as JSON' },
  async run({ values, positionals }, io) {
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
  },
};
