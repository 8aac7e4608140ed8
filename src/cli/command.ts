import type { ParseArgsConfig } from 'node:util';

export interface CommandIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly env: Record<string, string | undefined>;
  readonly cwd: string;
}

/** What a command is parsed with and run on: its options' values and its positional arguments. */
export interface CommandArgs {
  values: Record<string, unknown>;
  positionals: string[];
}

/** A command's code: resolves to the exit code. Throw CommandError for a one-line failure. */
export type CommandRun = (args: CommandArgs, io: CommandIO) => Promise<number>;

/** A command as the CLI lists, documents and parses it (commands.ts); its code is loaded to run it. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /** Longer help, printed by `--help` after the summary: what the command does (options: optionHelp). */
  readonly description?: string;
  readonly options?: ParseArgsConfig['options'];
  /** One line per option for --help: what it does (and its default). Every option has one. */
  readonly optionHelp?: Readonly<Record<string, string>>;
  /** One line per positional argument for --help, by its name in `usage` (e.g. "<email>"). */
  readonly argumentHelp?: Readonly<Record<string, string>>;
  /** What the command reads from the environment beyond the common settings, for --help. */
  readonly environment?: string;
  readonly allowPositionals?: boolean;
  /** Imports the command's module (commands/<name>.ts) and gives its code: only when it runs. */
  load(): Promise<CommandRun>;
}

/** A failure reported as one line on stderr with a non-zero exit, never a stack trace. */
export class CommandError extends Error {}
