import type { ClientInput } from '../../oauth/clients.ts';
import { clientJson, clientText, problemsLine } from '../client-output.ts';
import { type CommandArgs, CommandError, type CommandIO } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

/**
 * `clients:create`: registers a relying party (docs/guides/oidc-provider.md "Clients"). The secret of
 * a confidential client is printed once and stored only as a hash. Never prompts.
 */
export async function run({ values }: CommandArgs, io: CommandIO): Promise<number> {
  const name = values['name'];
  if (typeof name !== 'string')
    throw new CommandError('Usage: gatehouse clients:create --name NAME … (see --help)');
  const strings = (key: string) => (values[key] as string[] | undefined) ?? [];
  const input: ClientInput = {
    name,
    redirectUris: strings('redirect-uri'),
    postLogoutRedirectUris: strings('post-logout-redirect-uri'),
    backchannelLogoutUri: (values['backchannel-logout-uri'] as string | undefined) ?? null,
    grantTypes: strings('grant'),
    scope: (values['scope'] as string | undefined) ?? null,
    public: values['public'] === true,
    trusted: values['trusted'] === true,
  };
  return withServices(
    io,
    async (services) => {
      const result = await services.oauth.clients.create(input, commandAudit(services));
      if (!result.ok) {
        const t = services.i18n.translator('en');
        throw new CommandError(`The client was not registered: ${problemsLine(t, result.problems)}`);
      }
      if (values['json']) {
        io.stdout.write(`${JSON.stringify(clientJson(result.client, result.secret), null, 2)}\n`);
        return 0;
      }
      io.stdout.write(`Client registered.\n${clientText(result.client)}\n`);
      if (result.secret !== null) {
        io.stdout.write(`client_secret:             ${result.secret}\n`);
        io.stdout.write('Store the secret now: it is not shown again (only its hash is kept).\n');
      }
      return 0;
    },
    { migrate: true },
  );
}
