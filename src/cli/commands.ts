import type { Command } from './command.ts';

/** The Eloquent model whose Sanctum tokens import:laravel copies unless --tokenable names another. */
export const USER_MODEL = 'App\\Models\\User';

/**
 * Every command, as `gatehouse --help` lists it: its name, help and options, without its code. This list
 * and the dispatcher (index.ts) are all that `--help` or a mistyped name or option loads; a command's
 * module (commands/<name>.ts), and the services behind it, is imported only when the command runs
 * (docs/reference/cli.md).
 */
export const commands: readonly Command[] = [
  panelAccess(true),
  panelAccess(false),
  {
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
      grant:
        'authorization_code, refresh_token (default: both), client_credentials (confidential, no redirect URI needed) or urn:ietf:params:oauth:grant-type:device_code',
      scope:
        'The scopes it may ask for (default: "openid profile email", and offline_access with refresh tokens)',
      'post-logout-redirect-uri': 'Where RP-initiated logout may return to (https, or http on loopback)',
      'backchannel-logout-uri': 'Where logout notices are POSTed when a session ends',
      json: 'Print the result as JSON',
    },
    load: async () => (await import('./commands/clients-create.ts')).run,
  },
  {
    name: 'clients:delete',
    summary: 'Delete an OpenID Connect client and revoke everything issued to it',
    usage: 'gatehouse clients:delete <client_id> [--json]',
    argumentHelp: { '<client_id>': 'The client to delete' },
    allowPositionals: true,
    options: { json: { type: 'boolean' } },
    optionHelp: { json: 'Print the result as JSON' },
    load: async () => (await import('./commands/clients-delete.ts')).run,
  },
  {
    name: 'clients:list',
    summary: 'List the registered OpenID Connect clients',
    usage: 'gatehouse clients:list [--json]',
    options: { json: { type: 'boolean' } },
    optionHelp: { json: 'Print the list as JSON' },
    load: async () => (await import('./commands/clients-list.ts')).run,
  },
  {
    name: 'clients:rotate-secret',
    summary: "Replace a confidential client's secret",
    usage: 'gatehouse clients:rotate-secret <client_id> [--json]',
    description: 'The old secret stops working at once; the new one is printed once (only its hash is kept).',
    argumentHelp: { '<client_id>': 'A confidential client' },
    allowPositionals: true,
    options: { json: { type: 'boolean' } },
    optionHelp: { json: 'Print the result as JSON' },
    load: async () => (await import('./commands/clients-rotate-secret.ts')).run,
  },
  {
    name: 'clients:show',
    summary: 'Show one OpenID Connect client',
    usage: 'gatehouse clients:show <client_id> [--json]',
    argumentHelp: { '<client_id>': 'The client_id clients:create printed' },
    allowPositionals: true,
    options: { json: { type: 'boolean' } },
    optionHelp: { json: 'Print the client as JSON' },
    load: async () => (await import('./commands/clients-show.ts')).run,
  },
  {
    name: 'import:laravel',
    summary: "Copy a Laravel application's users and Sanctum tokens into Gatehouse",
    usage:
      'gatehouse import:laravel --from <DATABASE_URL of the Laravel app> [--dry-run] [--admins e1,e2] [--tokenable TYPE] [--timezone ZONE]',
    description: `Reads the Laravel database (mysql://, mariadb://, postgres:// or sqlite:PATH; only read, in one
snapshot) and writes into Gatehouse's own database (DATABASE_URL) in ONE transaction: if anything
fails, nothing is written. Running it again imports only what is new.

Imported: users (id, name, e-mail lower-cased, password hash as it is, email_verified_at, timestamps)
and the personal_access_tokens of the user model (id, SHA-256 hash as stored, name, abilities,
last_used_at, expires_at, timestamps). Accounts whose e-mails differ only in letter case are reported
and none of them is imported. Sessions, password reset tokens and remember-me tokens are not imported.`,
    options: {
      from: { type: 'string' },
      'dry-run': { type: 'boolean' },
      admins: { type: 'string' },
      tokenable: { type: 'string' },
      timezone: { type: 'string' },
    },
    optionHelp: {
      from: "The Laravel application's database, as a DATABASE_URL (required)",
      'dry-run': 'Read and check everything, report what would happen, write nothing',
      admins: 'Comma-separated e-mails of imported users who get panel access',
      tokenable: `The tokenable_type whose tokens are imported (default ${USER_MODEL})`,
      timezone: "Laravel's config('app.timezone'), the zone its timestamps are in (default UTC)",
    },
    load: async () => (await import('./commands/import-laravel.ts')).run,
  },
  {
    name: 'mail:test',
    summary: 'Send a test message through the configured mailer and print the result',
    usage: 'gatehouse mail:test <address>',
    argumentHelp: { '<address>': 'Where to send the test message (MAIL_MAILER, MAIL_HOST, … decide how)' },
    allowPositionals: true,
    load: async () => (await import('./commands/mail-test.ts')).run,
  },
  {
    name: 'make:admin',
    summary: 'Create a verified user with access to the administration panel',
    usage: 'gatehouse make:admin [--name NAME] [--email EMAIL] [--password PASSWORD]',
    options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    optionHelp: {
      name: 'Display name, up to 255 characters (asked for on a terminal when left out)',
      email: 'E-mail address to sign in with; must not belong to an account yet (asked for when left out)',
      password:
        'Password, 8–128 characters, not a common one. Visible to other local users (ps) and kept in the shell history: leave it out to type it hidden',
    },
    load: async () => (await import('./commands/make-admin.ts')).run,
  },
  {
    name: 'migrate',
    summary: 'Apply pending database migrations',
    usage: 'gatehouse migrate',
    load: async () => (await import('./commands/migrate.ts')).run,
  },
  {
    name: 'oidc:rotate-keys',
    summary: 'Make new OpenID Connect signing keys current',
    usage: 'gatehouse oidc:rotate-keys [--json]',
    description:
      'Creates a new RS256 and ES256 key; the running instances sign with them within 5 seconds. The previous keys stay in /oauth/jwks until every token they signed has expired (OIDC_REFRESH_TOKEN_TTL), then are deleted.',
    options: { json: { type: 'boolean' } },
    optionHelp: { json: 'Print the result as JSON' },
    load: async () => (await import('./commands/oidc-rotate-keys.ts')).run,
  },
  {
    name: 'serve',
    summary: 'Apply migrations and serve HTTP on HOST:PORT',
    usage: 'gatehouse serve',
    environment:
      'HOST (default 127.0.0.1) and PORT (default 3000) choose where it listens; every other setting is read from the environment and a .env file as for npm start (see README).',
    load: async () => (await import('./commands/serve.ts')).run,
  },
  {
    name: 'sessions:prune',
    summary: 'Delete expired browser sessions and remember-me tokens',
    usage: 'gatehouse sessions:prune',
    load: async () => (await import('./commands/sessions-prune.ts')).run,
  },
  {
    name: 'tokens:prune',
    summary: 'Delete expired API tokens',
    usage: 'gatehouse tokens:prune',
    load: async () => (await import('./commands/tokens-prune.ts')).run,
  },
  {
    name: 'two-factor:disable',
    summary: "Turn off a user's two-factor authentication",
    usage: 'gatehouse two-factor:disable --email ADDRESS',
    description:
      'Deletes the TOTP secret and recovery codes of the account, so that it signs in with its password alone; the owner is told by mail.',
    options: { email: { type: 'string' } },
    optionHelp: { email: 'The address of an existing account' },
    load: async () => (await import('./commands/two-factor-disable.ts')).run,
  },
];

/** `admin:grant <email>` / `admin:revoke <email>` (commands/admin-grant.ts). */
function panelAccess(grant: boolean): Command {
  const name = grant ? 'admin:grant' : 'admin:revoke';
  return {
    name,
    summary: grant
      ? 'Give an existing user access to the administration panel'
      : "Withdraw a user's access to the administration panel",
    usage: `gatehouse ${name} <email>`,
    argumentHelp: { '<email>': 'The address of an existing account' },
    allowPositionals: true,
    load: async () => (await import('./commands/admin-grant.ts')).panelAccess(grant),
  };
}
