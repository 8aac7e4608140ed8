import type { ClientInput } from '../../oauth/clients.ts';
import { clientJson, clientText, problemsLine } from '../client-output.ts';
import { type Command, CommandError } from '../command.ts';
import { commandAudit, withServices } from '../services.ts';

/**
 * `clients:create`: registers a relying party (docs/guides/oidc-provider.md "Clients"). The secret of
 * a confidential client is printed once and stored only as a hash. Never prompts.
 */
export const clientsCreateCommand: Command = {
  name: 'clients:create',
  summary: 'Register an OpenID Connect client (relying party)',
  usage:
    'gatehouse clients:create --name NAME [--redirect-uri URI]… [--public] [--trusted] [--grant TYPE]… [--scope "…"] [--post-logout-redirect-uri URI]… [--backchannel-logout-uri URI] [--json]',
  description:
    'Prints the client_id and, for a confidential client, the client_secret — once: only its hash is kept. Repeatable options are given once per value.',
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    public: { type: 'boolean' },
    trusted: { type: 'boolean' },
    grant: { type: 'string', multiple: true },
    scope: { type: 'string' },
    'post-logout-redirect-uri': { type: 'string', multiple: true },
    'backchannel-logout-uri': { type: 'string' },
    json: { type: 'boolean' },
  },
  optionHelp: {
    name: 'What people see on the consent screen and in their connected apps',
    'redirect-uri':
      'Where codes are sent: https, http on localhost/127.0.0.1/[::1], or a native app scheme (com.example.app:/cb)',
    public: 'No secret (a browser or native app); PKCE protects its codes',
    trusted: 'First-party: signs people in without the consent screen',
    grant: 'authorization_code, refresh_token (default: both)',
    scope: 'The scopes it may ask for (default: "openid profile email offline_access")',
    'post-logout-redirect-uri': 'Where RP-initiated logout may return to (https, or http on loopback)',
    'backchannel-logout-uri': 'Where logout notices are POSTed when a session ends',
    json: 'Print the result as JSON',
  },
  async run({ values }, io) {
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
  },
};
