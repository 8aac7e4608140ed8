// The refresh exchange's baseline (issue 29): oidc-provider alone, in memory (a plain Map adapter), the same safety
// settings as Gatehouse's provider where they touch a refresh (rotation, JWT access tokens for one
// resource signed RS256, client_secret_basic). Gatehouse's ratio to it is the cost of our storage and
// hooks, not of the library. GET /seed?n= hands out n refresh tokens of one grant, made through the
// library's own models, so both servers start the load from the same kind of token.
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env['PORT'] ?? 0);
const issuer = `http://127.0.0.1:${port}`;
const audience = `${issuer}/api`;
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
// Client credentials tokens are ES256, as Gatehouse's (bench/machines.ts).
const ec = await generateKeyPair('ES256', { extractable: true });
const ecJwk = { ...(await exportJWK(ec.privateKey)), kid: 'bench-ec', alg: 'ES256', use: 'sig' };

const BARE_CLIENT = {
  id: process.env['BENCH_CLIENT_ID'] ?? 'bench',
  secret: process.env['BENCH_CLIENT_SECRET'] ?? 'bench-secret',
};

/**
 * The library's own in-memory adapter keeps 1,000 entries (an LRU): under a refresh load it dropped the
 * grants and the case failed with invalid_grant. A plain Map keeps everything for the run.
 */
class MapAdapter {
  static readonly store = new Map<string, { payload: Record<string, unknown>; consumed?: number }>();
  static readonly grants = new Map<string, string[]>();
  constructor(readonly name: string) {}
  #key(id: string) {
    return `${this.name}:${id}`;
  }
  async upsert(id: string, payload: Record<string, unknown>) {
    MapAdapter.store.set(this.#key(id), { payload });
    const grantId = payload['grantId'];
    if (typeof grantId === 'string') {
      MapAdapter.grants.set(grantId, [...(MapAdapter.grants.get(grantId) ?? []), this.#key(id)]);
    }
  }
  async find(id: string) {
    const entry = MapAdapter.store.get(this.#key(id));
    return entry && { ...entry.payload, ...(entry.consumed ? { consumed: entry.consumed } : {}) };
  }
  async findByUid(uid: string) {
    for (const entry of MapAdapter.store.values()) if (entry.payload['uid'] === uid) return entry.payload;
    return undefined;
  }
  async findByUserCode() {
    return undefined;
  }
  async consume(id: string) {
    const entry = MapAdapter.store.get(this.#key(id));
    if (entry) entry.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    MapAdapter.store.delete(this.#key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const key of MapAdapter.grants.get(grantId) ?? []) MapAdapter.store.delete(key);
    MapAdapter.grants.delete(grantId);
  }
}

const provider = new Provider(issuer, {
  adapter: MapAdapter as never,
  clients: [
    {
      client_id: BARE_CLIENT.id,
      client_secret: BARE_CLIENT.secret,
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      scope: 'openid offline_access email profile posts:read',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: { keys: [jwk, ecJwk] as never },
  routes: {
    authorization: '/oauth/authorize',
    token: '/oauth/token',
    userinfo: '/oauth/userinfo',
    jwks: '/oauth/jwks',
  },
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, email: 'bench@example.com', email_verified: true, name: 'Bench User' }),
  }),
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  scopes: ['openid', 'offline_access', 'email', 'profile', 'posts:read'],
  pkce: { required: () => true },
  rotateRefreshToken: true,
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx) =>
        ctx.oidc.params?.['grant_type'] === 'client_credentials'
          ? {
              scope: 'posts:read',
              audience,
              accessTokenTTL: 600,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'ES256' } },
            }
          : {
              scope: 'openid email profile',
              audience,
              accessTokenTTL: 600,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'RS256' } },
            },
    },
  },
});

/**
 * n refresh tokens, each of its own grant as a code exchange would have issued them (as Gatehouse's are:
 * one flow each), so a token reused by a load that was cut off revokes its own chain only.
 */
async function seed(n: number): Promise<string[]> {
  const client = await provider.Client.find(BARE_CLIENT.id);
  const now = Math.floor(Date.now() / 1000);
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const grant = new provider.Grant({ accountId: 'bench-user', clientId: BARE_CLIENT.id });
    grant.addOIDCScope('openid offline_access email profile');
    grant.addResourceScope(audience, 'openid email profile');
    const grantId = await grant.save();
    const token = new provider.RefreshToken({
      client: client!,
      accountId: 'bench-user',
      grantId,
      scope: 'openid offline_access email profile',
      resource: audience,
      gty: 'authorization_code',
      authTime: now,
      iiat: now,
    } as never);
    tokens.push(await token.save());
  }
  return tokens;
}

const callback = provider.callback();
const server = createServer((request, response) => {
  if (request.url?.startsWith('/seed')) {
    const n = Number(new URL(request.url, issuer).searchParams.get('n') ?? '1');
    seed(n).then(
      (tokens) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tokens)),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
    return;
  }
  callback(request, response);
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`bare oidc-provider listening on ${issuer}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
