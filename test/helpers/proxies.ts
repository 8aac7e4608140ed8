import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { requireServices } from './databases.ts';

/** Debian's packages (`.ci/run` installs them); another build can be named by these variables. */
export const NGINX_PATH = process.env['NGINX_PATH'] ?? '/usr/sbin/nginx';
export const CADDY_PATH = process.env['CADDY_PATH'] ?? '/usr/bin/caddy';
export const APACHE_PATH = process.env['APACHE_PATH'] ?? '/usr/sbin/apache2';
export const APACHE_MODULES = process.env['APACHE_MODULES'] ?? '/usr/lib/apache2/modules';

/** A proxy suite skips with a one-line reason when its binary is missing, unless REQUIRE_SERVICES=1. */
export function binarySkip(name: string, path: string, install: string): string | false {
  if (existsSync(path)) return false;
  if (requireServices) throw new Error(`${name} is required (REQUIRE_SERVICES=1) but missing at ${path}`);
  return `${name} not installed at ${path} (${install})`;
}

/** A reverse proxy running as a child process on a loopback port, with its own temporary folder. */
export interface ProxyProcess {
  readonly port: number;
  /** What it wrote to stdout and stderr (error logs), for a failing test's message. */
  readonly output: string[];
  stop(): Promise<void>;
}

/**
 * nginx with `serverBlocks` (from docs/integrations/) inside a main configuration of its own: in the foreground
 * (`daemon off`, so it is our child), one worker, pid file, temp paths and error log in a temporary
 * prefix, no access log. Run as root, the workers would drop to `nobody`, who cannot enter the
 * temporary folder (mode 0700): `user root;` keeps them as they are. As another user, nginx cannot
 * switch users at all and the directive is left out.
 */
export async function startNginx(serverBlocks: string, port: number): Promise<ProxyProcess> {
  const prefix = mkdtempSync(join(tmpdir(), 'gatehouse-nginx-'));
  const main = [
    process.getuid?.() === 0 ? 'user root;' : '',
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(prefix, 'nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 256; }',
    'http {',
    '    access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (kind) => `    ${kind}_temp_path ${join(prefix, kind)};`,
    ),
    serverBlocks,
    '}',
  ].join('\n');
  const config = join(prefix, 'nginx.conf');
  writeFileSync(config, main);
  return started(spawn(NGINX_PATH, ['-p', prefix, '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] }), {
    name: 'nginx',
    port,
    folder: prefix,
  });
}

/**
 * Caddy with `siteBlocks` (from docs/integrations/) after global options that keep it to itself: no admin
 * endpoint (port 2019 would clash between runs), no automatic HTTPS, loopback only, certificates
 * storage and autosaved config in a temporary folder (also HOME and XDG_*, so nothing lands in ~).
 */
export async function startCaddy(siteBlocks: string, port: number): Promise<ProxyProcess> {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-caddy-'));
  const globals = [
    '{',
    '\tadmin off',
    '\tauto_https off',
    '\tdefault_bind 127.0.0.1',
    `\tstorage file_system ${join(folder, 'data')}`,
    '}',
  ].join('\n');
  const config = join(folder, 'Caddyfile');
  writeFileSync(config, `${globals}\n\n${siteBlocks}`);
  const child = spawn(CADDY_PATH, ['run', '--config', config, '--adapter', 'caddyfile'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: folder,
      XDG_DATA_HOME: folder,
      XDG_CONFIG_HOME: folder,
    },
  });
  return started(child, { name: 'Caddy', port, folder });
}

/**
 * Apache httpd with `siteConfig` (from docs/integrations/) after a main configuration of its own: in
 * the foreground (our child), prefork with a few workers, every module loaded by absolute path from
 * APACHE_MODULES, pid file, runtime files and error log in a temporary folder (readable by everyone:
 * as root, Apache's workers run as `nobody`), no access log. `files` are written into the folder first
 * (a CGI script, a page); `{{dir}}` in the configuration stands for the folder.
 */
export async function startApache(
  siteConfig: string,
  port: number,
  modules: readonly string[],
  files: Readonly<Record<string, { text: string; mode?: number }>> = {},
): Promise<ProxyProcess> {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-apache-'));
  chmodSync(folder, 0o755);
  for (const [name, file] of Object.entries(files)) {
    writeFileSync(join(folder, name), file.text, { mode: file.mode ?? 0o644 });
  }
  const main = [
    `ServerRoot ${folder}`,
    `DefaultRuntimeDir ${folder}`,
    `PidFile ${join(folder, 'httpd.pid')}`,
    'ServerName 127.0.0.1',
    `Listen 127.0.0.1:${port}`,
    ...['mpm_prefork', 'authn_core', 'authz_core', ...modules].map(
      (name) => `LoadModule ${name}_module ${join(APACHE_MODULES, `mod_${name}.so`)}`,
    ),
    process.getuid?.() === 0 ? 'User nobody\nGroup nogroup' : '',
    'StartServers 2',
    'MaxRequestWorkers 8',
    // Through a pipe: Apache cannot open the pipe it was given as stderr by name.
    'ErrorLog "|/bin/cat"',
    'LogLevel warn',
    siteConfig.replaceAll('{{dir}}', folder),
  ].join('\n');
  const config = join(folder, 'httpd.conf');
  writeFileSync(config, main);
  const child = spawn(APACHE_PATH, ['-f', config, '-DFOREGROUND'], {
    // A process group of its own: prefork stops its workers by signalling its whole group, which
    // would otherwise be the test runner's.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C' },
  });
  return started(child, { name: 'Apache', port, folder });
}

/** Resolves once `port` accepts connections; rejects with the proxy's output if it exits first. */
async function started(
  child: ChildProcess,
  { name, port, folder }: { name: string; port: number; folder: string },
): Promise<ProxyProcess> {
  const output: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => output.push(...chunk.split('\n').filter(Boolean)));
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (running()) child.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  // Still running a moment after the port answers: a port taken by someone else in the meantime
  // would answer too, while the proxy exits with "address in use".
  const up = async () => {
    if (!(await accepts(port))) return false;
    await sleep(100);
    return running();
  };
  while (!(await up())) {
    if (!running() || Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not start on port ${port}:\n${output.slice(-20).join('\n')}`);
    }
    await sleep(50);
  }
  return { port, output, stop };
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
