import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/index.ts';
import { BIN } from './paths.ts';

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

/**
 * `node bin/gatehouse.js …` as a user runs it: in `cwd`, with exactly `env` (plus PATH); stdin is a
 * pipe closed at once, so not a terminal; `nodeArgs` go to node before the script. The one
 * child-process helper of the CLI tests.
 */
export function runGatehouse(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  nodeArgs: string[] = [],
): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
