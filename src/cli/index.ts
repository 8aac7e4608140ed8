import { parseArgs } from 'node:util';
import { ConfigError } from '../config.ts';
import { type Command, CommandError, type CommandIO } from './command.ts';
import { adminGrantCommand } from './commands/admin-grant.ts';
import { adminRevokeCommand } from './commands/admin-revoke.ts';
import { mailTestCommand } from './commands/mail-test.ts';
import { makeAdminCommand } from './commands/make-admin.ts';
import { migrateCommand } from './commands/migrate.ts';
import { serveCommand } from './commands/serve.ts';
import { sessionsPruneCommand } from './commands/sessions-prune.ts';
import { tokensPruneCommand } from './commands/tokens-prune.ts';

export const commands: readonly Command[] = [
  adminGrantCommand,
  adminRevokeCommand,
  mailTestCommand,
  makeAdminCommand,
  migrateCommand,
  serveCommand,
  sessionsPruneCommand,
  tokensPruneCommand,
];

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: gatehouse <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "gatehouse <command> --help" for a command\'s options.',
  ].join('\n');
}

function help(command: Command): string {
  const lines = [`Usage: ${command.usage}`, '', command.summary];
  const options = Object.entries(command.options ?? {});
  if (options.length) {
    lines.push('', 'Options:');
    for (const [name, spec] of options) lines.push(`  --${name}${spec.type === 'string' ? ' <value>' : ''}`);
  }
  lines.push('  --help');
  return lines.join('\n');
}

/** Runs one CLI invocation; returns the exit code. Errors become one line on stderr. */
export async function runCli(argv: readonly string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${overview()}\n`);
    if (name !== undefined) return 0;
    // Without a command nothing ran: a failure, reported like every other one, in one line on stderr.
    io.stderr.write('Missing command. Run "gatehouse --help" for the list.\n');
    return 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`Unknown command "${name}". Run "gatehouse --help" for the list.\n`);
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
