import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/index.ts';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI dispatcher in-process with captured output and a non-TTY stdin (no spawn). */
export async function runCliInProcess(
  args: string[],
  env: Record<string, string>,
  cwd: string = process.cwd(),
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await runCli(args, { stdout, stderr, stdin, env, cwd });
  return { code, stdout: out, stderr: err };
}
