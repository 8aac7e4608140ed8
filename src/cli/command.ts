import type { ParseArgsConfig } from 'node:util';

export interface CommandIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly env: Record<string, string | undefined>;
  readonly cwd: string;
}

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
  /** Resolves to the exit code. Throw CommandError for a one-line failure. */
  run(args: { values: Record<string, unknown>; positionals: string[] }, io: CommandIO): Promise<number>;
}

/** A failure reported as one line on stderr with a non-zero exit, never a stack trace. */
export class CommandError extends Error {}
