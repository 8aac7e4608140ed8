import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash } from '@node-rs/argon2';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { openDatabase } from '../../src/db/connection.ts';
import { docsBlock, fillIn, parseEnv } from './docs-config.ts';
import { type ServerProcess, startServer } from './process.ts';
import { type ProtectedApp, startProtectedApp } from './protected-app.ts';
import type { ProxyProcess } from './proxies.ts';
import { freePort } from './smtp-sink.ts';
import { insertUserRow } from './users.ts';
import { VirtualHostClient } from './virtual-host-client.ts';

/** The names that stand for the docs' app.example.com and auth.example.com (mapped to 127.0.0.1). */
export const APP_HOST = 'app.gatehouse.test';
export const AUTH_HOST = 'auth.gatehouse.test';

export interface StackUser {
  readonly id: number;
  readonly email: string;
  readonly name: string;
  readonly password: string;
}

/** Where each part listens, for filling in a configuration from docs/integrations/. */
export interface StackPorts {
  /** The proxy, serving both APP_HOST and AUTH_HOST. */
  readonly proxy: number;
  readonly gatehouse: number;
  readonly app: number;
}

/** Gatehouse, a protected app and a reverse proxy in front of both, as docs/integrations/ sets them up. */
export interface ForwardAuthStack {
  readonly ports: StackPorts;
  readonly app: ProtectedApp;
  readonly gatehouse: ServerProcess;
  readonly proxy: ProxyProcess;
  readonly verified: StackUser;
  readonly unverified: StackUser;
  /** http://app.gatehouse.test:<proxy port><path> */
  appUrl(path: string): string;
  /** http://auth.gatehouse.test:<proxy port><path> */
  authUrl(path: string): string;
  /**
   * Another proxy of the same configuration, on a port of its own, in front of another app (a PHP
   * app: php-app.ts); the caller stops it. Its app URLs are http://app.gatehouse.test:<its port>/….
   */
  proxyTo(appPort: number): Promise<ProxyProcess>;
  close(): Promise<void>;
}

/** A browser-like client for the stack: every request goes through the proxy. */
export const clientFor = (stack: ForwardAuthStack) => new VirtualHostClient(stack.ports.proxy);

/**
 * Starts Gatehouse (a real server process on a fresh SQLite file) with the forward-auth settings of
 * docs/integrations/forward-auth.md, filled in for these hosts and ports; the protected app; two users
 * (a verified one whose name is not ASCII, and an unverified one); and last the proxy, which
 * `startProxy` configures.
 */
export async function startForwardAuthStack(
  startProxy: (ports: StackPorts) => Promise<ProxyProcess>,
): Promise<ForwardAuthStack> {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-forward-auth-'));
  const started: Array<{ stop(): Promise<unknown> } | { close(): Promise<void> }> = [];
  try {
    const app = await startProtectedApp();
    started.push(app);
    const ports: StackPorts = { proxy: await freePort(), gatehouse: await freePort(), app: app.port };
    const origin = (host: string) => `http://${host}:${ports.proxy}`;
    const settings = parseEnv(
      fillIn(docsBlock('integrations/forward-auth.md', 'env'), [
        ['https://auth.example.com', origin(AUTH_HOST)],
        ['FORWARD_AUTH_DOMAINS=app.example.com', `FORWARD_AUTH_DOMAINS=${APP_HOST}:${ports.proxy}`],
        ['SESSION_DOMAIN=example.com', 'SESSION_DOMAIN=gatehouse.test'],
      ]),
    );
    const database = join(folder, 'gatehouse.sqlite');
    const gatehouse = await startServer({
      port: ports.gatehouse,
      // Three stacks may start at once on a busy machine (start-up, migrations).
      readyTimeoutMs: 120_000,
      env: { ...settings, DATABASE_URL: `sqlite:${database}`, MAIL_MAILER: 'log', LOG_LEVEL: 'warn' },
    });
    started.push(gatehouse);
    const [verified, unverified] = await insertUsers(database, [
      { name: 'Zoë Lovelace 李', email: 'zoe@example.com', verified: true },
      { name: 'Una Verified', email: 'una@example.com', verified: false },
    ]);
    const proxy = await startProxy(ports);
    started.push(proxy);
    return {
      ports,
      app,
      gatehouse,
      proxy,
      verified: verified!,
      unverified: unverified!,
      appUrl: (path) => `${origin(APP_HOST)}${path}`,
      authUrl: (path) => `${origin(AUTH_HOST)}${path}`,
      proxyTo: async (appPort) => startProxy({ ...ports, proxy: await freePort(), app: appPort }),
      close: () => stopAll(started, folder),
    };
  } catch (error) {
    await stopAll(started, folder);
    throw error;
  }
}

async function stopAll(
  started: Array<{ stop(): Promise<unknown> } | { close(): Promise<void> }>,
  folder: string,
): Promise<void> {
  for (const part of started.reverse()) await ('stop' in part ? part.stop() : part.close());
  rmSync(folder, { recursive: true, force: true });
}

/** Users straight into the server's database (its kept lookups notice the outside commit). */
async function insertUsers(
  filename: string,
  users: ReadonlyArray<{ name: string; email: string; verified: boolean }>,
): Promise<StackUser[]> {
  const handle = openDatabase({ dialect: 'sqlite', filename });
  try {
    const made: StackUser[] = [];
    for (const user of users) {
      const password = `forward-auth-${user.email.split('@')[0]}-9`;
      const passwordHash = await hash(password, { algorithm: 2, ...OWASP_ARGON2ID });
      const id = await insertUserRow(handle.db, { ...user, passwordHash });
      made.push({ id, email: user.email, name: user.name, password });
    }
    return made;
  } finally {
    await handle.close();
  }
}
