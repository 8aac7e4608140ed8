import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { createTestApp, describeApp, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { runCliInProcess } from '../helpers/cli.ts';

/**
 * The provider's set-up through HTTP and the CLI on every dialect: discovery (both documents), the
 * JWKS and the sealed keys, `clients:*` (secrets hashed, --json, the redirect-URI rules),
 * `oidc:rotate-keys`, client authentication at the token endpoint, and our browser plugins (CSRF, the
 * cross-site check) staying out of the provider's way.
 */
const ISSUER = 'http://gatehouse.test';

function cli(app: TestApp, args: string[]) {
  return runCliInProcess(args, {
    DATABASE_URL: app.databaseUrl,
    APP_KEY: TEST_APP_KEY,
    APP_URL: ISSUER,
    STORAGE_PATH: app.config.storagePath,
  });
}

async function createClient(app: TestApp, ...args: string[]) {
  const result = await cli(app, ['clients:create', '--json', ...args]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as {
    client_id: string;
    client_secret: string | null;
    [key: string]: unknown;
  };
}

/** An application/x-www-form-urlencoded body, as RFC 6749 §3.2 wants at the token endpoint. */
function form(fields: Record<string, string>) {
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  };
}

function withHeaders(request: ReturnType<typeof form>, headers: Record<string, string>) {
  return { ...request, headers: { ...request.headers, ...headers } };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

await describeApp('oauth set-up: discovery, keys, clients', (ctx) => {
  test('discovery: one document at both addresses, every endpoint under the issuer, the safe choices', async () => {
    const { app } = ctx();
    const openid = await app.inject({ url: '/.well-known/openid-configuration' });
    const oauth = await app.inject({ url: '/.well-known/oauth-authorization-server' });
    assert.equal(openid.statusCode, 200);
    assert.deepEqual(openid.json(), oauth.json());
    const doc = openid.json();
    assert.equal(doc.issuer, ISSUER);
    for (const [key, path] of Object.entries({
      authorization_endpoint: '/oauth/authorize',
      token_endpoint: '/oauth/token',
      userinfo_endpoint: '/oauth/userinfo',
      jwks_uri: '/oauth/jwks',
      introspection_endpoint: '/oauth/introspect',
      revocation_endpoint: '/oauth/revoke',
      end_session_endpoint: '/oauth/logout',
    })) {
      assert.equal(doc[key], `${ISSUER}${path}`, key);
    }
    assert.deepEqual(doc.response_types_supported, ['code']);
    assert.deepEqual(doc.code_challenge_methods_supported, ['S256']);
    assert.equal(doc.authorization_response_iss_parameter_supported, true);
    assert.deepEqual(doc.token_endpoint_auth_methods_supported, [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ]);
    for (const scope of ['openid', 'profile', 'email', 'offline_access', 'posts:read', 'posts:write']) {
      assert.ok(doc.scopes_supported.includes(scope), scope);
    }
    assert.equal(doc.registration_endpoint, undefined, 'dynamic registration is off');
    assert.deepEqual(doc.grant_types_supported.sort(), [
      'authorization_code',
      'client_credentials',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
    assert.equal(doc.device_authorization_endpoint, `${ISSUER}/oauth/device/auth`);
    assert.ok(doc.id_token_signing_alg_values_supported.includes('RS256'));
    // Back-Channel Logout 1.0 §2.1: left out, both mean false, and a relying party would not register.
    assert.equal(doc.backchannel_logout_supported, true);
    assert.equal(doc.backchannel_logout_session_supported, true);
    assert.deepEqual(doc.claim_types_supported, ['normal']);
    assert.deepEqual(doc.ui_locales_supported, ['en', 'de', 'fr', 'es']);
  });

  test('the endpoints are the issuer’s, whatever Host or X-Forwarded-Host a client sends', async () => {
    const response = await ctx().app.inject({
      url: '/.well-known/openid-configuration',
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    assert.equal(response.json().token_endpoint, `${ISSUER}/oauth/token`);
  });

  test('the JWKS publishes an RS256 and an ES256 key, public parts only; the stored private keys are sealed', async () => {
    const { app, db } = ctx();
    const jwks = (await app.inject({ url: '/oauth/jwks' })).json();
    const algs = jwks.keys.map((key: { alg: string }) => key.alg).sort();
    assert.deepEqual(algs, ['ES256', 'RS256']);
    for (const key of jwks.keys) {
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(key[secret], undefined, secret);
      assert.equal(key.use, 'sig');
      assert.ok(key.kid);
    }
    const rows = await db.selectFrom('oauth_signing_keys').selectAll().execute();
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.match(row.private_jwk, /^v1\./, 'sealed with APP_KEY');
      assert.ok(!row.private_jwk.includes('"d"'));
    }
  });

  test('clients:create prints the secret once and stores only its hash; list, show, rotate-secret, delete (--json)', async () => {
    const app = ctx();
    const created = await createClient(
      app,
      '--name',
      'Grafana',
      '--redirect-uri',
      'https://grafana.example/login/generic_oauth',
      '--post-logout-redirect-uri',
      'https://grafana.example/',
      '--scope',
      'openid profile email posts:read',
    );
    assert.match(created.client_id, /^[A-Za-z0-9]{24}$/);
    assert.match(String(created.client_secret), /^[A-Za-z0-9_-]{43}$/);
    assert.equal(created['public'], false);
    assert.deepEqual(created['redirect_uris'], ['https://grafana.example/login/generic_oauth']);
    const row = await app.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', created.client_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.secret_hash, sha256Hex(created.client_secret!));
    assert.ok(!JSON.stringify(row).includes(created.client_secret!), 'the secret itself is stored nowhere');

    const listed = await cli(app, ['clients:list', '--json']);
    const clients = JSON.parse(listed.stdout) as { client_id: string; client_secret?: unknown }[];
    const mine = clients.find((client) => client.client_id === created.client_id);
    assert.ok(mine);
    assert.equal('client_secret' in mine, false, 'a listing never shows a secret');
    const shown = JSON.parse((await cli(app, ['clients:show', created.client_id, '--json'])).stdout);
    assert.equal(shown.name, 'Grafana');
    assert.equal(shown.scope, 'openid profile email posts:read');

    const rotated = await cli(app, ['clients:rotate-secret', created.client_id, '--json']);
    assert.equal(rotated.code, 0, rotated.stderr);
    const secret = JSON.parse(rotated.stdout).client_secret as string;
    assert.notEqual(secret, created.client_secret);
    const attempt = (value: string) =>
      app.app.inject({
        method: 'POST',
        url: '/oauth/token',
        ...withHeaders(
          form({
            grant_type: 'authorization_code',
            code: 'x',
            redirect_uri: 'https://grafana.example/login/generic_oauth',
          }),
          { authorization: basic(created.client_id, value) },
        ),
      });
    assert.equal(
      (await attempt(created.client_secret!)).statusCode,
      401,
      'the old secret stops working at once',
    );
    const fresh = await attempt(secret);
    assert.equal(fresh.statusCode, 400, fresh.body);
    assert.equal(fresh.json().error, 'invalid_grant', 'the new secret authenticates');

    const deleted = await cli(app, ['clients:delete', created.client_id, '--json']);
    assert.deepEqual(JSON.parse(deleted.stdout), { client_id: created.client_id, deleted: true });
    assert.equal((await attempt(secret)).statusCode, 401, 'a deleted client authenticates no more');
    const again = await cli(app, ['clients:delete', created.client_id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^No client has the id .+\.\n$/);
  });

  test('a public client gets no secret, and rotate-secret says so', async () => {
    const app = ctx();
    const created = await createClient(
      app,
      '--name',
      'SPA',
      '--public',
      '--redirect-uri',
      'http://localhost:5173/cb',
    );
    assert.equal(created.client_secret, null);
    assert.equal(created['public'], true);
    const rotated = await cli(app, ['clients:rotate-secret', created.client_id]);
    assert.equal(rotated.code, 1);
    assert.match(rotated.stderr, /public client/);
  });

  test('redirect URIs the field got wrong are refused at registration, on one line, nothing stored', async () => {
    const app = ctx();
    const before = (await app.db.selectFrom('oauth_clients').select('id').execute()).length;
    for (const uri of [
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'https://app.example/cb#x',
      'https://*.app.example/cb',
      'http://app.example/cb',
      'https://app.example/cb/..;/x',
      'https://app.example@evil.example/cb',
    ]) {
      const result = await cli(app, ['clients:create', '--name', 'Bad', '--redirect-uri', uri]);
      assert.equal(result.code, 1, uri);
      assert.match(result.stderr, /^The client was not registered: redirect_uris: [^\n]+\n$/, uri);
    }
    const unknown = await cli(app, [
      'clients:create',
      '--name',
      'X',
      '--redirect-uri',
      'https://a.example/cb',
      '--scope',
      'openid admin:all',
    ]);
    assert.match(unknown.stderr, /"admin:all" is not a scope/);
    const missing = await cli(app, ['clients:create', '--name', 'X']);
    assert.match(missing.stderr, /redirect_uris is required/);
    assert.equal((await app.db.selectFrom('oauth_clients').select('id').execute()).length, before);
  });

  test('the token endpoint authenticates clients by basic or post; invalid_client is 401 with WWW-Authenticate: Basic', async () => {
    const app = ctx();
    const { client_id, client_secret } = await createClient(
      app,
      '--name',
      'Auth',
      '--redirect-uri',
      'https://a.example/cb',
    );
    const payload = { grant_type: 'authorization_code', code: 'nope', redirect_uri: 'https://a.example/cb' };
    const post = await app.app.inject({
      method: 'POST',
      url: '/oauth/token',
      ...form({ ...payload, client_id, client_secret: client_secret! }),
    });
    assert.equal(post.json().error, 'invalid_grant', 'client_secret_post authenticates');
    for (const wrong of [
      withHeaders(form(payload), { authorization: basic(client_id, 'wrong') }),
      form({ ...payload, client_id, client_secret: 'wrong' }),
      form({ ...payload, client_id: 'unknown', client_secret: 'x' }),
    ]) {
      const response = await app.app.inject({ method: 'POST', url: '/oauth/token', ...wrong });
      assert.equal(response.statusCode, 401, response.body);
      assert.equal(response.json().error, 'invalid_client');
      assert.match(String(response.headers['www-authenticate']), /^Basic /);
    }
  });

  test('our CSRF and cross-site checks leave the provider alone: a foreign Origin with a session cookie is no 419', async () => {
    const app = ctx();
    const { client_id, client_secret } = await createClient(
      app,
      '--name',
      'Csrf',
      '--redirect-uri',
      'https://a.example/cb',
    );
    const response = await app.app.inject({
      method: 'POST',
      url: '/oauth/token',
      ...withHeaders(form({ grant_type: 'refresh_token', refresh_token: 'nope' }), {
        origin: 'https://a.example',
        'sec-fetch-site': 'cross-site',
        cookie: 'gatehouse_session=abc',
        authorization: basic(client_id, client_secret!),
      }),
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().error, 'invalid_grant');
  });

  test('a malformed or oversized body is the provider’s invalid_request, never a 5xx', async () => {
    const { app } = ctx();
    for (const body of ['%E0%A4%A', 'a=1&a=2', '{"json":true}', 'x'.repeat(70_000)]) {
      const response = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: {
          'content-type': body.startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded',
        },
        payload: body,
      });
      assert.ok(
        response.statusCode >= 400 && response.statusCode < 500,
        `${response.statusCode} ${response.body}`,
      );
    }
  });

  test('a body over BODY_LIMIT is 413 in RFC 6749’s shape, before the provider reads it', async () => {
    const { app } = ctx();
    for (const url of ['/oauth/token', '/oauth/introspect', '/oauth/revoke']) {
      const response = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `token=${'x'.repeat(1024 * 1024 + 1)}`,
      });
      assert.equal(response.statusCode, 413, `${url}: ${response.body}`);
      assert.equal(response.json().error, 'invalid_request');
      assert.equal(response.headers['connection'], 'close', 'nobody reads the rest of the body');
    }
  });

  test('HEAD on discovery, the JWKS and userinfo: the GET’s status and headers, no body', async () => {
    const { app } = ctx();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    for (const path of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server',
      '/oauth/jwks',
      '/oauth/userinfo',
    ]) {
      const [get, head] = [await fetch(`${base}${path}`), await fetch(`${base}${path}`, { method: 'HEAD' })];
      assert.equal(head.status, get.status, path);
      assert.equal(head.headers.get('content-type'), get.headers.get('content-type'), path);
      assert.equal(head.headers.get('www-authenticate'), get.headers.get('www-authenticate'), path);
      assert.equal(await head.text(), '', path);
      await get.arrayBuffer();
    }
  });

  test('a wrong method on an endpoint programs call is 405 with Allow and an RFC 6749 error, whatever Accept says', async () => {
    // Before: a 405 page in HTML unless the client sent Accept: application/json.
    const { app } = ctx();
    for (const [method, url, allow] of [
      ['GET', '/oauth/token', 'POST, OPTIONS'],
      ['PUT', '/oauth/userinfo', 'GET, HEAD, POST, OPTIONS'],
      ['GET', '/oauth/introspect', 'POST, OPTIONS'],
      ['DELETE', '/oauth/revoke', 'POST, OPTIONS'],
      ['POST', '/oauth/jwks', 'GET, HEAD, OPTIONS'],
    ] as const) {
      const response = await app.inject({ method, url, headers: { accept: 'text/html,*/*' } });
      assert.equal(response.statusCode, 405, `${method} ${url}`);
      assert.equal(response.headers['allow'], allow, `${method} ${url}`);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.deepEqual(response.json(), {
        error: 'invalid_request',
        error_description: `${method} is not allowed here; use ${allow}`,
      });
    }
    // A page the browser visits keeps its page.
    const page = await app.inject({
      method: 'DELETE',
      url: '/oauth/authorize',
      headers: { accept: 'text/html' },
    });
    assert.equal(page.statusCode, 405);
    assert.match(String(page.headers['content-type']), /^text\/html/);
  });

  test('oidc:rotate-keys: new keys sign, the previous ones stay published; another instance follows within 5 s', async () => {
    const app = ctx();
    const before = (await app.app.inject({ url: '/oauth/jwks' }))
      .json()
      .keys.map((key: { kid: string }) => key.kid);
    const rotated = await cli(app, ['oidc:rotate-keys', '--json']);
    assert.equal(rotated.code, 0, rotated.stderr);
    const { current } = JSON.parse(rotated.stdout) as { current: string[] };
    assert.equal(current.length, 2);
    const newKids = current.map((entry) => entry.split(' ')[1]!);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const after = (await app.app.inject({ url: '/oauth/jwks' }))
      .json()
      .keys.map((key: { kid: string }) => key.kid);
    assert.deepEqual(after.slice(0, 2).sort(), [...newKids].sort(), 'the new keys come first: they sign');
    for (const kid of before) assert.ok(after.includes(kid), 'a retired key stays published');
    const signing = (await app.services.oauth.keyRing.current()).privateJwks
      .slice(0, 2)
      .map((key) => key.kid);
    assert.deepEqual(signing.sort(), [...newKids].sort());
  });
});

// Test apps start with the run's signing keys (helpers/signing-keys.ts); a new installation makes its own.
test('the first start on a database without signing keys makes an RS256 and an ES256 key of its own', async () => {
  const fresh = await createTestApp('sqlite', { freshSigningKeys: true });
  const usual = await createTestApp('sqlite');
  try {
    const kids = async (app: TestApp) =>
      ((await app.app.inject({ url: '/oauth/jwks' })).json().keys as { kid: string; alg: string }[])
        .map((key) => `${key.alg} ${key.kid}`)
        .sort();
    const made = await kids(fresh);
    assert.deepEqual(
      made.map((key) => key.split(' ')[0]),
      ['ES256', 'RS256'],
    );
    assert.equal((await fresh.db.selectFrom('oauth_signing_keys').selectAll().execute()).length, 2);
    const run = await kids(usual);
    assert.ok(
      made.every((key) => !run.includes(key)),
      'made at the start, not the run’s',
    );
  } finally {
    await fresh.close();
    await usual.close();
  }
});
