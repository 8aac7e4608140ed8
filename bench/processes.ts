import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadCpuMs } from './thread-cpu.ts';

/** The repository root: this module runs compiled, from dist/bench/ (scripts/build.mjs). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A server child process: its own event loop, so it never competes with autocannon's for one thread. */
export interface ServerProcess {
  readonly pid: number;
  readonly url: string;
  /** Resident set size now, in MiB (Linux /proc; null elsewhere). */
  rssMb(): number | null;
  /** CPU time used so far by all its threads (user + system), ms; null where /proc is missing. */
  cpuMs(): number | null;
  /** The same, split into the niced (hashing) threads and the rest (bench/thread-cpu.ts). */
  threadCpuMs(): { niced: number; rest: number } | null;
  /** SIGTERM and wait for a clean exit (a --cpu-prof profile is written on that exit). */
  stop(): Promise<void>;
}

/** A free loopback port: bound once by the OS, then released for the child to take. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The Node flags `npm start` gives the service (package.json, e.g. the young-generation size), so the
 * bench measures the process users run.
 */
export function startFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return manifest.scripts['start']!.split(/\s+/).filter((word) => /^--(?!import\b)/.test(word));
}

/**
 * Starts `node dist/<script>.js` (the compiled `script`, e.g. src/server.ts) from the repository root
 * and waits for its "listening on" line.
 * The child gets the parent's environment plus `env`, so REDIS_URL or HASH_CONCURRENCY reach it.
 */
export async function startServer(
  script: string,
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<ServerProcess> {
  const port = await freePort();
  const compiled = join(ROOT, 'dist', script.replace(/\.ts$/, '.js'));
  const child = spawn(process.execPath, [...nodeFlags, compiled], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: `http://127.0.0.1:${port}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForListening(child, script);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    rssMb: () => statusMb(child.pid!, 'VmRSS'),
    cpuMs: () => cpuMs(child.pid!),
    threadCpuMs: () => threadCpuMs(child.pid!),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timeout = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

function waitForListening(child: ChildProcess, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let started = false;
    const timer = setTimeout(() => fail(new Error(`${script} did not start within 60 s`)), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    // Read to the end even after the start line, so a chatty child never blocks on a full pipe.
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (started) return;
      stdout += chunk;
      if (/listening on/.test(stdout)) {
        started = true;
        clearTimeout(timer);
        resolve();
      }
    });
    // The tail of stderr explains a failed start.
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
    });
    child.once('exit', (code) => {
      if (!started) fail(new Error(`${script} exited with ${code}: ${stderr.trim()}`));
    });
  });
}

/** A size field of /proc/<pid>/status (VmRSS, VmHWM) in MiB. */
export function statusMb(pid: number, field: string): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
    return kb === undefined ? null : Math.round((Number(kb) / 1024) * 10) / 10;
  } catch {
    return null;
  }
}

/** utime + stime of /proc/<pid>/stat (clock ticks of 10 ms on Linux), in ms. */
export function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
