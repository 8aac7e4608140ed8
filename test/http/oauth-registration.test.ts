import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { answerConsent, follow, ISSUER, injectFetch, signedInBrowser } from '../helpers/oidc.ts';

/**
 * Dynamic client registration (RFC 7591; docs/guides/oidc-provider.md "Dynamic registration"): off
 * unless OIDC_DYNAMIC_REGISTRATION=true; then public clients only, the CLI's redirect-URI rules, never
 * trusted, audited, limited per address. And a real MCP client — the MCP SDK's client-side OAuth —
 * registering itself and signing a person in to a small protected MCP server this test runs.
 */
const register = (app: TestApp, body: unknown, remoteAddress = '127.0.0.1') =>
  app.app.inject({
    method: 'POST',
    url: '/oauth/register',
    remoteAddress,
    headers: { 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** What a public client says it is (RFC 7591 §2): without it, the request is for a confidential one. */
const none = { token_endpoint_auth_method: 'none' };

await describeApp('oauth dynamic registration: off by default', (ctx) => {
  test('POST /oauth/register is 404 and discovery names no registration endpoint', async () => {
    const app = ctx();
    const response = await register(app, { redirect_uris: ['https://a.example/cb'] });
    assert.equal(response.statusCode, 404);
    const discovery = (await app.app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    assert.equal(discovery.registration_endpoint, undefined);
  });
});

await describeApp(
  'oauth dynamic registration',
  (ctx) => {
    test('a public client registers: 201, never trusted, audited; discovery names the endpoint', async () => {
      const app = ctx();
      const discovery = (await app.app.inject({ url: '/.well-known/openid-configuration' })).json();
      assert.equal(discovery.registration_endpoint, `${ISSUER}/oauth/register`);
      const response = await register(app, {
        client_name: 'Editor plug-in',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.match(body.client_id, /^[A-Za-z0-9]{24}$/);
      assert.equal(body.client_secret, undefined);
      assert.equal(body.token_endpoint_auth_method, 'none');
      const client = await app.services.oauth.clients.find(body.client_id);
      assert.equal(client?.public, true);
      assert.equal(client?.trusted, false);
      const audit = await app.db
        .selectFrom('audit_log')
        .selectAll()
        .where('event', '=', 'oauth.client.created')
        .execute();
      assert.ok(
        audit.some((row) => String(row.details).includes(body.client_id) && row.ip_address === '127.0.0.1'),
      );
    });

    test('a device-flow client needs no redirect URI (RFC 8628 redirects nowhere); a code-flow one does', async () => {
      const app = ctx();
      const device = await register(
        app,
        { ...none, client_name: 'TV app', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] },
        '10.0.0.6',
      );
      assert.equal(device.statusCode, 201, device.body);
      assert.deepEqual(device.json().redirect_uris, []);
      const code = await register(app, { ...none, client_name: 'Web app' }, '10.0.0.6');
      assert.equal(code.statusCode, 400, code.body);
      assert.equal(code.json().error, 'invalid_redirect_uri');
    });

    test('refused with RFC 7591 errors: confidential, client_credentials, bad redirect URIs, bad JSON', async () => {
      const app = ctx();
      const cases: [unknown, string][] = [
        [
          { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' },
          'invalid_client_metadata',
        ],
        [{ ...none, redirect_uris: [], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
        [{ ...none, redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
        [{ ...none, redirect_uris: ['https://*.example/cb'] }, 'invalid_redirect_uri'],
        [{ ...none, redirect_uris: ['http://a.example/cb'] }, 'invalid_redirect_uri'],
        [{ ...none, redirect_uris: 'https://a.example/cb' }, 'invalid_redirect_uri'],
        [
          { ...none, redirect_uris: ['https://a.example/cb'], response_types: ['token'] },
          'invalid_client_metadata',
        ],
        ['{"redirect_uris": [', 'invalid_client_metadata'],
        ['[]', 'invalid_client_metadata'],
      ];
      for (const [body, error] of cases) {
        const response = await register(app, body, '10.0.0.2');
        assert.equal(response.statusCode, 400, `${JSON.stringify(body)} ${response.body}`);
        assert.equal(response.json().error, error, JSON.stringify(body));
      }
    });

    test('token_endpoint_auth_method left out asks for a confidential client (RFC 7591 §2): refused', async () => {
      const app = ctx();
      const before = (await app.services.oauth.clients.list()).length;
      const response = await register(app, { redirect_uris: ['http://127.0.0.1/callback'] }, '10.0.0.5');
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().error, 'invalid_client_metadata');
      assert.match(response.json().error_description, /token_endpoint_auth_method: "none"/);
      assert.equal((await app.services.oauth.clients.list()).length, before, 'nothing registered');
    });

    test('post_logout_redirect_uris are kept by the same rules, and RP-initiated logout may use them', async () => {
      const app = ctx();
      const signedOut = 'http://127.0.0.1:7000/signed-out';
      const response = await register(
        app,
        {
          ...none,
          redirect_uris: ['http://127.0.0.1:7000/callback'],
          post_logout_redirect_uris: [signedOut],
        },
        '10.0.0.7',
      );
      assert.equal(response.statusCode, 201, response.body);
      const { client_id: clientId, post_logout_redirect_uris: kept } = response.json();
      assert.deepEqual(kept, [signedOut]);
      assert.deepEqual((await app.services.oauth.clients.find(clientId))?.postLogoutRedirectUris, [
        signedOut,
      ]);
      const logout = (uri: string) =>
        app.app.inject({
          url: `/oauth/logout?${new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: uri })}`,
          headers: { accept: 'text/html' },
        });
      assert.equal((await logout(signedOut)).statusCode, 200, 'the registered URI: the confirmation page');
      assert.equal((await logout('http://127.0.0.1:7000/elsewhere')).statusCode, 400);
      // Checked like the CLI's, and refused as metadata (invalid_redirect_uri is for redirect_uris).
      for (const post_logout_redirect_uris of [
        ['javascript:alert(1)'],
        ['https://a.example/#x'],
        'https://a.example/',
      ]) {
        const refused = await register(
          app,
          { ...none, redirect_uris: ['https://a.example/cb'], post_logout_redirect_uris },
          '10.0.0.7',
        );
        assert.equal(refused.statusCode, 400, refused.body);
        assert.equal(refused.json().error, 'invalid_client_metadata');
        assert.match(refused.json().error_description, /post_logout_redirect_uris/);
      }
      // https on a loopback host beside a native app's redirect URIs (OpenID Connect refuses the mix):
      // refused at the list that holds it.
      const native = ['http://127.0.0.1:7000/callback'];
      for (const [body, error, field] of [
        [
          { redirect_uris: native, post_logout_redirect_uris: ['https://127.0.0.1/bye'] },
          'invalid_client_metadata',
          'post_logout_redirect_uris',
        ],
        [{ redirect_uris: [...native, 'https://localhost/cb'] }, 'invalid_redirect_uri', 'redirect_uris'],
      ] as const) {
        const refused = await register(app, { ...none, ...body }, '10.0.0.7');
        assert.equal(refused.statusCode, 400, refused.body);
        assert.equal(refused.json().error, error, refused.body);
        assert.match(refused.json().error_description, new RegExp(`^${field}: mixed_loopback`));
      }
    });

    test('limited per address: the 21st registration in an hour is 429, another address is not', async () => {
      const app = ctx();
      const body = { ...none, redirect_uris: ['https://limited.example/cb'] };
      for (let i = 0; i < 20; i++) assert.equal((await register(app, body, '10.0.0.3')).statusCode, 201);
      const refused = await register(app, body, '10.0.0.3');
      assert.equal(refused.statusCode, 429);
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.equal((await register(app, body, '10.0.0.4')).statusCode, 201);
    });

    test('the MCP SDK registers itself, signs a person in and calls a protected MCP server', async () => {
      const app = ctx();
      const user = await app.createUser();
      const mcp = await protectedMcpServer(app);
      try {
        const provider = new TestClientProvider(`${mcp.origin}/callback`);
        const fetch = routedFetch(app);
        const first = new StreamableHTTPClientTransport(new URL(`${mcp.origin}/mcp`), {
          authProvider: provider,
          fetch,
        });
        await assert.rejects(new Client({ name: 'test', version: '1' }).connect(first), /Unauthorized/);
        assert.ok(provider.client, 'registered itself');
        assert.ok(provider.authorizationUrl, 'sent the person to Gatehouse');

        const browser = await signedInBrowser(app, user.email, user.password);
        let { callback, last } = await follow(browser, provider.authorizationUrl.href);
        if (callback === null) ({ callback } = await answerConsent(browser, last, 'allow'));
        const code = callback?.searchParams.get('code');
        assert.ok(code, `no code: ${callback}`);
        await first.finishAuth(code);
        assert.ok(provider.saved?.access_token);

        const client = new Client({ name: 'test', version: '1' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${mcp.origin}/mcp`), { authProvider: provider, fetch }),
        );
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        assert.deepEqual(result.content, [{ type: 'text', text: String(user.id) }]);
        await client.close();
      } finally {
        await mcp.close();
      }
    });
  },
  { env: { OIDC_DYNAMIC_REGISTRATION: 'true' } },
);

/** Gatehouse's URLs go to the test app (inject); the MCP server's over loopback. */
function routedFetch(app: TestApp) {
  const gatehouse = injectFetch(app.app);
  return (url: string | URL, init?: RequestInit) =>
    String(url).startsWith(ISSUER) ? gatehouse(String(url), init ?? {}) : fetch(url, init);
}

/** An MCP client's storage, in memory; it declines RFC 8707 resource indicators (see the guide). */
class TestClientProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata() {
    return {
      client_name: 'MCP test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'openid profile',
    };
  }
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => {
    this.client = info;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
  validateResourceURL = async () => undefined;
}

/**
 * A protected MCP server (MCP authorization, RFC 9728): its resource metadata names Gatehouse; a
 * request without a valid Gatehouse access token is 401 with the metadata's address; the one tool
 * answers the token's subject. Tokens are verified offline with Gatehouse's JWKS.
 */
async function protectedMcpServer(app: TestApp) {
  const jwks = createLocalJWKSet((await app.app.inject({ url: '/oauth/jwks' })).json() as JSONWebKeySet);
  let origin = '';
  const server: Server = createServer(async (req, res) => {
    if (
      req.url === '/.well-known/oauth-protected-resource' ||
      req.url?.startsWith('/.well-known/oauth-protected-resource/')
    ) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [ISSUER] }));
      return;
    }
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const sub = token
      ? await jwtVerify(token, jwks, { issuer: ISSUER, audience: ISSUER, typ: 'at+jwt' }).then(
          (verified) => verified.payload.sub,
          () => undefined,
        )
      : undefined;
    if (sub === undefined) {
      res.writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource"`,
      });
      res.end();
      return;
    }
    const mcp = new McpServer({ name: 'protected', version: '1' });
    mcp.registerTool('whoami', { description: 'The signed-in person' }, async () => ({
      content: [{ type: 'text', text: sub }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, await jsonBody(req));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  return text === '' ? undefined : JSON.parse(text);
}
