// Services calling Gatehouse as themselves (issue 30, docs/contributing/benchmarks.md): the
// client_credentials exchange against oidc-provider alone (bench/bare-oidc-server.ts, in-memory
// adapter, the same ES256 JWT access tokens), introspection by a resource server, and GET /api/user
// with a client's token — authenticated, then refused with 403: a client is nobody's account.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { LoadCase } from './load.ts';
import { BARE_CLIENT } from './oidc.ts';
import { ROOT, type ServerProcess } from './processes.ts';

export const MACHINE_CASES = [
  'POST /oauth/token client_credentials',
  'bare oidc-provider client_credentials',
  'POST /oauth/introspect',
  'client_credentials GET /api/user',
] as const;
export type MachineCaseName = (typeof MACHINE_CASES)[number];

const form = 'application/x-www-form-urlencoded';

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** A client registered as an operator would: clients:create with client_credentials. */
function machineClient(serviceEnv: Record<string, string>, name: string, extra: string[]) {
  const result = spawnSync(
    process.execPath,
    [
      join(ROOT, 'bin', 'gatehouse.js'),
      'clients:create',
      '--name',
      name,
      '--grant',
      'client_credentials',
      ...extra,
      '--json',
    ],
    { cwd: ROOT, env: { ...process.env, ...serviceEnv }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`clients:create failed: ${result.stderr || result.stdout}`);
  const json = JSON.parse(result.stdout) as { client_id: string; client_secret: string };
  return basic(json.client_id, json.client_secret);
}

async function clientToken(url: string, authorization: string): Promise<string> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': form, authorization },
    body: 'grant_type=client_credentials&scope=posts:read',
  });
  if (!response.ok)
    throw new Error(`client_credentials answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export async function machineCases(
  service: ServerProcess,
  serviceEnv: Record<string, string>,
  start: (script: string, env: Record<string, string>) => Promise<ServerProcess>,
): Promise<Record<MachineCaseName, LoadCase>> {
  const worker = machineClient(serviceEnv, 'Bench worker', ['--scope', 'posts:read']);
  const resourceServer = machineClient(serviceEnv, 'Bench API', ['--trusted']);
  const token = await clientToken(service.url, worker);
  const bare = await start('bench/bare-oidc-server.ts', {
    BENCH_CLIENT_ID: BARE_CLIENT.id,
    BENCH_CLIENT_SECRET: BARE_CLIENT.secret,
  });
  const issue = 'grant_type=client_credentials&scope=posts:read';
  return {
    'POST /oauth/token client_credentials': {
      name: 'POST /oauth/token client_credentials',
      url: `${service.url}/oauth/token`,
      method: 'POST',
      headers: { 'content-type': form, authorization: worker },
      body: issue,
      server: service,
    },
    'bare oidc-provider client_credentials': {
      name: 'bare oidc-provider client_credentials',
      url: `${bare.url}/oauth/token`,
      method: 'POST',
      headers: { 'content-type': form, authorization: basic(BARE_CLIENT.id, BARE_CLIENT.secret) },
      body: issue,
      server: bare,
    },
    'POST /oauth/introspect': {
      name: 'POST /oauth/introspect',
      url: `${service.url}/oauth/introspect`,
      method: 'POST',
      headers: { 'content-type': form, authorization: resourceServer },
      body: `token=${token}`,
      server: service,
    },
    'client_credentials GET /api/user': {
      name: 'client_credentials GET /api/user',
      url: `${service.url}/api/user`,
      headers: { authorization: `Bearer ${token}` },
      expectStatus: 403,
      server: service,
    },
  };
}
