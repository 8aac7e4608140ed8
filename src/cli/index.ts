import { parseArgs } from 'node:util';
import { ConfigError } from '../config.ts';
import { packageVersion } from '../lib/version.ts';
import { type Command, CommandError, type CommandIO } from './command.ts';
import { commands } from './commands.ts';

export { commands };

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
  return closest(
    name.toLowerCase(),
    commands.map((c) => c.name),
  );
}

/** The one of `candidates` that `typed` most likely meant (see suggest), or null. */
function closest(typed: string, candidates: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate);
    if (best === null || distance < best.distance) best = { name: candidate, distance };
  }
  if (best !== null && best.distance <= Math.min(3, Math.ceil(best.name.length / 3))) return best.name;
  const partial = candidates.filter((c) => typed.length >= 3 && (c.startsWith(typed) || c.endsWith(typed)));
  return partial.length === 1 ? partial[0]! : null;
}

/**
 * The one line for an option parseArgs refused: an unknown option gets the command's option it most
 * likely meant ("--emial" → "--email"); every other refusal keeps parseArgs' own first sentence.
 */
function optionError(command: Command, error: Error & { code?: unknown }): string {
  const more = `Run "gatehouse ${command.name} --help".`;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const typed = /'([^']+)'/.exec(error.message)?.[1] ?? '';
    const names = [...Object.keys(command.options ?? {}), 'help'];
    const guess = typed.startsWith('--') ? closest(typed.slice(2).toLowerCase(), names) : null;
    return `Unknown option "${typed}" for ${command.name}.${guess ? ` Did you mean "--${guess}"?` : ''} ${more}`;
  }
  return `${error.message.split('\n')[0]!.replace(/\.$/, '')}. ${more}`;
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
    const options = { ...command.options, help: { type: 'boolean', short: 'h' } } as const;
    const { values, positionals, tokens } = parseArgs({
      args: [...rest],
      options,
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
      tokens: true,
    });
    // parseArgs keeps the last of a repeated option silently: `--name A --name B` would register "B"
    // without a word. An option that takes one value is refused when given twice.
    const seen = new Set<string>();
    for (const token of tokens) {
      if (token.kind !== 'option' || (options[token.name] as { multiple?: boolean })?.multiple) continue;
      if (seen.has(token.name))
        throw new CommandError(`--${token.name} was given more than once; give it once.`);
      seen.add(token.name);
    }
    if (values['help']) {
      io.stdout.write(`${help(command)}\n`);
      return 0;
    }
    const run = await command.load();
    return await run({ values, positionals }, io);
  } catch (error) {
    const message =
      error instanceof CommandError || error instanceof ConfigError
        ? error.message
        : error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')
          ? optionError(command, error)
          : `${name} failed: ${error instanceof Error ? error.message : String(error)}`;
    io.stderr.write(`${message.split('\n')[0]}\n`);
    return 1;
  }
}

/** `gatehouse …` as bin/gatehouse.js runs it: this process's arguments and streams, and its exit code. */
export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  });
  if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
}
