import { parseArgs } from 'node:util';
import { ConfigError } from '../config.ts';
import { packageVersion } from '../lib/version.ts';
import { type Command, CommandError, type CommandIO } from './command.ts';
import { adminGrantCommand } from './commands/admin-grant.ts';
import { adminRevokeCommand } from './commands/admin-revoke.ts';
import { clientsCreateCommand } from './commands/clients-create.ts';
import { clientsDeleteCommand } from './commands/clients-delete.ts';
import { clientsListCommand } from './commands/clients-list.ts';
import { clientsRotateSecretCommand } from './commands/clients-rotate-secret.ts';
import { clientsShowCommand } from './commands/clients-show.ts';
import { importLaravelCommand } from './commands/import-laravel.ts';
import { mailTestCommand } from './commands/mail-test.ts';
import { makeAdminCommand } from './commands/make-admin.ts';
import { migrateCommand } from './commands/migrate.ts';
import { oidcRotateKeysCommand } from './commands/oidc-rotate-keys.ts';
import { serveCommand } from './commands/serve.ts';
import { sessionsPruneCommand } from './commands/sessions-prune.ts';
import { tokensPruneCommand } from './commands/tokens-prune.ts';
import { twoFactorDisableCommand } from './commands/two-factor-disable.ts';

export const commands: readonly Command[] = [
  adminGrantCommand,
  adminRevokeCommand,
  clientsCreateCommand,
  clientsDeleteCommand,
  clientsListCommand,
  clientsRotateSecretCommand,
  clientsShowCommand,
  importLaravelCommand,
  mailTestCommand,
  makeAdminCommand,
  migrateCommand,
  oidcRotateKeysCommand,
  serveCommand,
  sessionsPruneCommand,
  tokensPruneCommand,
  twoFactorDisableCommand,
];

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: gatehouse <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    "  --help, -h     Show this list, or a command's options after its name",
    '  --version, -v  Print the version of Gatehouse',
    '',
    'Run "gatehouse <command> --help" for a command\'s options.',
  ].join('\n');
}

/** A command's --help: usage, what it does, and every option with its description. */
export function help(command: Command): string {
  const lines = [`Usage: ${command.usage}`, '', command.summary];
  if (command.description) lines.push('', command.description);
  const args = Object.entries(command.argumentHelp ?? {});
  if (args.length > 0) {
    const argWidth = Math.max(...args.map(([a]) => a.length));
    lines.push('', 'Arguments:', ...args.map(([a, text]) => `  ${a.padEnd(argWidth)}  ${text}`));
  }
  const rows: [string, string][] = Object.entries(command.options ?? {}).map(([name, spec]) => [
    `--${name}${spec.type === 'string' ? ' <value>' : ''}`,
    command.optionHelp?.[name] ?? '',
  ]);
  rows.push(['--help, -h', 'Show this help']);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  lines.push('', 'Options:');
  for (const [flag, text] of rows) lines.push(`  ${flag.padEnd(width)}  ${text}`.trimEnd());
  lines.push(
    '',
    command.environment ??
      'Settings come from the environment and a .env file in the working directory (DATABASE_URL, APP_KEY, …; see README).',
  );
  return lines.join('\n');
}

/**
 * The command a mistyped name most likely meant: the closest by edit distance (at most a third of
 * its length, and at most 3), or the only command the name starts or ends.
 */
export function suggest(name: string): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const command of commands) {
    const distance = editDistance(name.toLowerCase(), command.name);
    if (best === null || distance < best.distance) best = { name: command.name, distance };
  }
  if (best !== null && best.distance <= Math.min(3, Math.ceil(best.name.length / 3))) return best.name;
  const partial = commands.filter(
    (c) => name.length >= 3 && (c.name.startsWith(name) || c.name.endsWith(name)),
  );
  return partial.length === 1 ? partial[0]!.name : null;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Runs one CLI invocation; returns the exit code. Errors become one line on stderr. */
export async function runCli(argv: readonly string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout.write(`gatehouse ${packageVersion()}\n`);
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${overview()}\n`);
    if (name !== undefined) return 0;
    // Without a command nothing ran: a failure, reported like every other one, in one line on stderr.
    io.stderr.write('Missing command. Run "gatehouse --help" for the list.\n');
    return 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const guess = suggest(name);
    io.stderr.write(
      `Unknown command "${name}".${guess ? ` Did you mean "${guess}"?` : ''} Run "gatehouse --help" for the list.\n`,
    );
    return 1;
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    });
    if (values['help']) {
      io.stdout.write(`${help(command)}\n`);
      return 0;
    }
    return await command.run({ values, positionals }, io);
  } catch (error) {
    const message =
      error instanceof CommandError || error instanceof ConfigError
        ? error.message
        : error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')
          ? `${error.message}. Run "gatehouse ${name} --help".`
          : `${name} failed: ${error instanceof Error ? error.message : String(error)}`;
    io.stderr.write(`${message.split('\n')[0]}\n`);
    return 1;
  }
}

if (process.argv[1] && /(gatehouse(\.js)?|cli[\\/]index\.ts)$/.test(process.argv[1])) {
  const code = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  });
  if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
}
