import { clientJson } from '../client-output.ts';
import type { CommandRun } from '../command.ts';
import { withServices } from '../services.ts';

export const run: CommandRun = ({ values }, io) =>
  withServices(
    io,
    async ({ oauth }) => {
      const clients = await oauth.clients.list();
      if (values['json']) {
        io.stdout.write(
          `${JSON.stringify(
            clients.map((client) => clientJson(client)),
            null,
            2,
          )}\n`,
        );
        return 0;
      }
      if (clients.length === 0) {
        io.stdout.write(
          'No clients registered. Add one with "gatehouse clients:create --name NAME --redirect-uri URI".\n',
        );
        return 0;
      }
      for (const client of clients) {
        const kind = `${client.public ? 'public' : 'confidential'}${client.trusted ? ', trusted' : ''}`;
        io.stdout.write(`${client.clientId}  ${client.name}  (${kind})  ${client.redirectUris.join(' ')}\n`);
      }
      return 0;
    },
    { migrate: true },
  );
