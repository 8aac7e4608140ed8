import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFlags } from '../../bench/processes.ts';
import { TEST_APP_KEY } from './app.ts';
import { SERVER_ENTRY } from './paths.ts';
import { freePort } from './smtp-sink.ts';

export interface ServerOptions {
  /** Service configuration (DATABASE_URL, REDIS_URL, MAIL_*, …); APP_KEY and APP_URL have test defaults. */
  readonly env: Record<string, string>;
  /** Listen here (a restart comes back on the same port); a free port otherwise. */
  readonly port?: number;
  readonly readyTimeoutMs?: number;
}

/** A real `node <npm start's flags> dist/src/server.js` process, as `npm start` runs it. */
export interface ServerProcess {
  readonly port: number;
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly child: ChildProcess;
  /** Every stdout line (JSON log lines and the "listening" line) and stderr line so far. */
  readonly stdout: string[];
  readonly stderr: string[];
  /** The exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (graceful shutdown) and wait for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: no shutdown hook runs, like a crash or the OOM killer. */
  kill9(): Promise<void>;
}

/**
 * Starts the server with only the given environment (plus PATH/HOME), in a temporary working
 * directory, and resolves once it prints its "listening" line. Rejects with its output if it exits or
 * does not come up in time.
 */
export async function startServer(options: ServerOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-proc-'));
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? cwd,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    APP_KEY: TEST_APP_KEY,
    APP_URL: `http://127.0.0.1:${port}`,
    STORAGE_PATH: join(cwd, 'storage'),
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const child = spawn(process.execPath, [...startFlags(), SERVER_ENTRY], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  collectLines(child.stdout!, stdout);
  collectLines(child.stderr!, stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  void exited.then(() => rmSync(cwd, { recursive: true, force: true }));

  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  await new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (stdout.some((line) => /listening on http:\/\//.test(line))) {
        clearInterval(timer);
        resolve();
      } else if (child.exitCode !== null || child.signalCode !== null || Date.now() - started > timeoutMs) {
        clearInterval(timer);
        child.kill('SIGKILL');
        reject(
          new Error(
            `server did not start (exit ${child.exitCode ?? child.signalCode ?? 'timeout'}):\n` +
              [...stdout, ...stderr].slice(-20).join('\n'),
          ),
        );
      }
    }, 20);
  });

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    stdout,
    stderr,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

function collectLines(stream: NodeJS.ReadableStream, into: string[]): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    into.push(...lines.filter(Boolean));
  });
  stream.on('end', () => {
    if (rest) into.push(rest);
  });
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * A browser-like client for a real server over fetch(): a cookie jar, the CSRF token scraped from the
 * last form, redirects not followed. `baseUrl` can be changed to talk to another instance with the
 * same cookies (several instances behind a load balancer).
 */
export class HttpClient {
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(public baseUrl: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(
    method: string,
    path: string,
    options: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) headers['cookie'] = this.cookieHeader();
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams({ ...(this.csrf ? { _token: this.csrf } : {}), ...options.form }).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      headers['accept'] ??= 'application/json';
      if (this.csrf) headers['x-csrf-token'] ??= this.csrf;
      body = JSON.stringify(options.json);
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    for (const line of response.headers.getSetCookie()) this.#absorbCookie(line);
    const token = /name="_token" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return {
      status: response.status,
      headers: response.headers,
      body: text,
      json: <T>() => JSON.parse(text) as T,
    };
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.request('GET', path, { headers });
  }

  /** A form submit with the current CSRF token. */
  post(path: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) {
    return this.request('POST', path, { form, headers });
  }

  #absorbCookie(line: string): void {
    const [pair, ...attributes] = line.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    const expired = attributes.some((a) => {
      const [key, val = ''] = a.trim().split('=');
      if (key!.toLowerCase() === 'max-age') return Number(val) <= 0;
      if (key!.toLowerCase() === 'expires') return new Date(val).getTime() <= Date.now();
      return false;
    });
    if (expired || value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

/** Waits until `check` returns a value other than undefined (polling), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
