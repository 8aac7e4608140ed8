// The OpenID provider's hot paths (issue 29, docs/contributing/benchmarks.md): a client registered
// through the CLI, real authorization-code flows over loopback with the bench user's session cookie,
// and the refresh exchange measured against oidc-provider alone (bench/bare-oidc-server.ts).
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { LoadCase } from './load.ts';
import { ROOT, type ServerProcess } from './processes.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
/** The bare provider's one client (bench/bare-oidc-server.ts reads it from its environment). */
export const BARE_CLIENT = { id: 'bench', secret: randomBytes(24).toString('base64url') };

export interface BenchClient {
  readonly clientId: string;
  readonly secret: string;
}

/** A confidential, trusted client with refresh tokens, registered as an operator would: clients:create. */
export function registerClient(serviceEnv: Record<string, string>): BenchClient {
  const result = spawnSync(
    process.execPath,
    [
      join(ROOT, 'bin', 'gatehouse.js'),
      'clients:create',
      '--name',
      'Bench',
      '--redirect-uri',
      REDIRECT_URI,
      '--trusted',
      '--grant',
      'authorization_code',
      '--grant',
      'refresh_token',
      '--json',
    ],
    { cwd: ROOT, env: { ...process.env, ...serviceEnv }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`clients:create failed: ${result.stderr || result.stdout}`);
  const json = JSON.parse(result.stdout) as { client_id: string; client_secret: string };
  return { clientId: json.client_id, secret: json.client_secret };
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** Cookies of one browser: the session cookie it starts with, and whatever the provider sets. */
class Jar {
  readonly #cookies = new Map<string, string>();
  constructor(start: string) {
    for (const pair of start.split('; ')) this.#take(pair);
  }
  #take(pair: string): void {
    const at = pair.indexOf('=');
    if (at > 0) this.#cookies.set(pair.slice(0, at), pair.slice(at + 1));
  }
  absorb(response: Response): void {
    for (const line of response.headers.getSetCookie()) this.#take(line.split(';', 1)[0]!);
  }
  get header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * One authorization-code flow as a signed-in browser and its app go through it: /oauth/authorize,
 * every redirect and Refresh inside Gatehouse, the code at the redirect URI, then the token request.
 * Answers the tokens and how many HTTP requests it took.
 */
export async function codeFlow(serviceUrl: string, sessionCookie: string, client: BenchClient) {
  const jar = new Jar(sessionCookie);
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL('/oauth/authorize', serviceUrl);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email offline_access',
    prompt: 'consent',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  let target = authorize;
  let requests = 0;
  for (let hop = 0; hop < 20; hop++) {
    if (target.href.startsWith(REDIRECT_URI)) break;
    const response = await fetch(target, { redirect: 'manual', headers: { cookie: jar.header } });
    requests++;
    jar.absorb(response);
    const body = await response.text();
    const refresh = /url=(.+)$/i.exec(response.headers.get('refresh') ?? '')?.[1];
    const next = response.headers.get('location') ?? refresh;
    if (!next)
      throw new Error(`the flow stopped at ${target.pathname}: ${response.status} ${body.slice(0, 200)}`);
    target = new URL(next, target);
  }
  const code = target.searchParams.get('code');
  if (!code) throw new Error(`no code at the redirect URI: ${target.href}`);
  const tokens = await fetch(new URL('/oauth/token', serviceUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(client.clientId, client.secret),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    }).toString(),
  });
  requests++;
  const json = (await tokens.json()) as { access_token?: string; refresh_token?: string };
  if (!tokens.ok || !json.access_token || !json.refresh_token) {
    throw new Error(`the token request answered ${tokens.status}: ${JSON.stringify(json)}`);
  }
  return { accessToken: json.access_token, refreshToken: json.refresh_token, requests };
}

/**
 * POST /oauth/token with grant_type=refresh_token, each rotated token used once: a pool of tokens (one
 * per connection and some over), each answer's new token back into the pool before that connection's
 * next request is built (autocannon calls onResponse first).
 */
export function refreshCase(
  name: string,
  server: ServerProcess,
  client: { id: string; secret: string },
  tokens: string[],
  more?: (n: number) => Promise<string[]>,
): LoadCase {
  const pool = [...tokens];
  let seen = 0;
  return {
    name,
    url: `${server.url}/oauth/token`,
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(client.id, client.secret),
    },
    server,
    // Tokens made just before each load (the bare provider's): every connection's warm-up and measured
    // load has its own, whatever happened since the run began.
    ...(more
      ? { prepare: async () => void pool.splice(0, pool.length, ...(await more(tokens.length))) }
      : {}),
    chain: {
      body: () => `grant_type=refresh_token&refresh_token=${pool.pop() ?? 'pool-empty'}`,
      answered: (status, body) => {
        if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
        // The first refusal says why (a lost or reused token): the case then fails on its statuses.
        else if (seen++ === 0) process.stderr.write(`  ${name}: first refused answer ${status} ${body}\n`);
      },
    },
  };
}

/** Refresh tokens of the bare provider (bench/bare-oidc-server.ts /seed). */
export async function bareRefreshTokens(bare: ServerProcess, n: number): Promise<string[]> {
  const response = await fetch(`${bare.url}/seed?n=${n}`);
  if (!response.ok) throw new Error(`bare /seed answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as string[];
}

/**
 * Whole authorization-code flows (issue 29): `concurrency` browsers run flows back to back for
 * `duration` seconds; flows per second, the HTTP requests one takes, and the server's CPU per flow.
 */
export async function roundTrips(
  server: ServerProcess,
  sessionCookie: string,
  client: BenchClient,
  options: { duration: number; concurrency: number },
) {
  const cpuBefore = server.cpuMs();
  const deadline = Date.now() + options.duration * 1000;
  let flows = 0;
  let requests = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (Date.now() < deadline) {
        requests = (await codeFlow(server.url, sessionCookie, client)).requests;
        flows++;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const cpuAfter = server.cpuMs();
  return {
    flows_per_s: Math.round((flows / seconds) * 10) / 10,
    requests_per_flow: requests,
    cpu_ms_per_flow:
      cpuBefore === null || cpuAfter === null
        ? null
        : Math.round(((cpuAfter - cpuBefore) / flows) * 100) / 100,
  };
}

export const OIDC_CASES = [
  'oidc GET /api/user',
  'GET /oauth/userinfo',
  'POST /oauth/token refresh',
  'bare oidc-provider refresh',
] as const;
export type OidcCaseName = (typeof OIDC_CASES)[number];

/**
 * The OpenID cases against the running service: a client, one flow's JWT access token for /api/user
 * and userinfo, a refresh token per connection (and some over) from flows of their own, and the bare
 * provider (started here, stopped with the other servers) with as many tokens of its own.
 */
export async function oidcCases(
  service: ServerProcess,
  serviceEnv: Record<string, string>,
  sessionCookie: string,
  connections: number,
  rounds: number,
  start: (script: string, env: Record<string, string>) => Promise<ServerProcess>,
): Promise<{ cases: Record<OidcCaseName, LoadCase>; client: BenchClient; bare: ServerProcess }> {
  const client = registerClient(serviceEnv);
  const first = await codeFlow(service.url, sessionCookie, client);
  // A load that ends drops the answers still in flight, and with them one rotated token per
  // connection: enough tokens for every load of the run (warm-up and measured, each round).
  const needed = connections * (2 * rounds + 1) + 10;
  const refreshTokens = [first.refreshToken];
  while (refreshTokens.length < needed) {
    const batch = Array.from({ length: Math.min(10, needed - refreshTokens.length) }, () =>
      codeFlow(service.url, sessionCookie, client),
    );
    for (const flow of await Promise.all(batch)) refreshTokens.push(flow.refreshToken);
  }
  const bare = await start('bench/bare-oidc-server.ts', {
    BENCH_CLIENT_ID: BARE_CLIENT.id,
    BENCH_CLIENT_SECRET: BARE_CLIENT.secret,
  });
  const bearer = { authorization: `Bearer ${first.accessToken}` };
  return {
    client,
    bare,
    cases: {
      'oidc GET /api/user': {
        name: 'oidc GET /api/user',
        url: `${service.url}/api/user`,
        headers: bearer,
        server: service,
      },
      'GET /oauth/userinfo': {
        name: 'GET /oauth/userinfo',
        url: `${service.url}/oauth/userinfo`,
        headers: bearer,
        server: service,
      },
      'POST /oauth/token refresh': refreshCase(
        'POST /oauth/token refresh',
        service,
        { id: client.clientId, secret: client.secret },
        refreshTokens,
      ),
      'bare oidc-provider refresh': refreshCase(
        'bare oidc-provider refresh',
        bare,
        BARE_CLIENT,
        await bareRefreshTokens(bare, connections * 3 + 10),
        (n) => bareRefreshTokens(bare, n),
      ),
    },
  };
}
