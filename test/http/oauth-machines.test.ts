import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { describeApp, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { ISSUER, registerClient, serviceParty } from '../helpers/oidc.ts';
import { parseExposition, sampleValue } from '../helpers/prometheus.ts';

/**
 * Services calling Gatehouse as themselves (docs/guides/oidc-provider.md "Client credentials"), through
 * HTTP with openid-client: a token only for clients registered with the grant, only with their scopes,
 * no ID token, an ES256 RFC 9068 token whose `sub` is the client, which the API authenticates but never
 * takes for a user, and which dies with its client or its secret.
 */
const CC = 'client_credentials';
const METRICS = 'metrics-token-for-the-tests-0123456789';

async function machine(app: TestApp, scope = 'posts:read posts:write') {
  return registerClient(app, { grantTypes: [CC], redirectUris: [], scope });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function refusal(promise: Promise<unknown>): Promise<{ error: string; status: number }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { error?: string; status?: number };
    return { error: String(e.error), status: Number(e.status) };
  }
  assert.fail('the token endpoint gave a token');
}

await describeApp(
  'oauth client credentials',
  (ctx) => {
    test('a token with the scopes asked among the registered ones: ES256, typ at+jwt, sub = the client, no ID token', async () => {
      const app = ctx();
      const rp = await machine(app);
      const config = await serviceParty(app, rp);
      const tokens = await client.clientCredentialsGrant(config, { scope: 'posts:read' });
      assert.equal(tokens.token_type.toLowerCase(), 'bearer');
      assert.equal(tokens.id_token, undefined, 'no ID token: no person signed in');
      assert.equal(tokens.refresh_token, undefined);
      assert.equal(tokens.scope, 'posts:read');
      const header = decodeProtectedHeader(tokens.access_token);
      assert.equal(header.alg, 'ES256');
      assert.equal(header.typ, 'at+jwt');
      const jwks = (await app.app.inject({ url: '/oauth/jwks' })).json();
      const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks), {
        issuer: ISSUER,
        audience: ISSUER,
        typ: 'at+jwt',
      });
      assert.equal(payload.sub, rp.clientId);
      assert.equal(payload['client_id'], rp.clientId);
      assert.equal(payload['scope'], 'posts:read');
      assert.equal(payload['gid'], undefined, 'no grant: nobody consented');

      // Without a scope: a token without abilities; OpenID scopes mean nothing without a person.
      const plain = await client.clientCredentialsGrant(config);
      assert.equal(plain.scope, undefined);
      const both = await serviceParty(app, await machine(app, 'openid posts:read'));
      assert.equal(
        (await client.clientCredentialsGrant(both, { scope: 'openid posts:read' })).scope,
        'posts:read',
      );
    });

    test('a scope outside the client’s list is invalid_scope; a client without the grant is unauthorized_client', async () => {
      const app = ctx();
      const reader = await serviceParty(app, await machine(app, 'posts:read'));
      for (const scope of ['posts:write', 'no-such-scope', 'posts:read no-such-scope']) {
        assert.deepEqual(
          await refusal(client.clientCredentialsGrant(reader, { scope })),
          { error: 'invalid_scope', status: 400 },
          scope,
        );
      }
      const webApp = await registerClient(app);
      const config = await serviceParty(app, webApp);
      assert.deepEqual(await refusal(client.clientCredentialsGrant(config, { scope: 'posts:read' })), {
        error: 'unauthorized_client',
        status: 400,
      });
      const stranger = await machine(app);
      const wrong = await app.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${stranger.clientId}:not-the-secret`).toString('base64')}`,
        },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(wrong.statusCode, 401);
      assert.equal(wrong.json().error, 'invalid_client');
    });

    test('a public client cannot be registered with the grant; a confidential one needs no redirect URI', async () => {
      const app = ctx();
      const refused = await app.services.oauth.clients.create(
        {
          name: 'Public machine',
          redirectUris: [],
          postLogoutRedirectUris: [],
          backchannelLogoutUri: null,
          grantTypes: [CC],
          scope: 'posts:read',
          public: true,
          trusted: false,
        },
        { now: Date.now() },
      );
      assert.ok(!refused.ok);
      assert.deepEqual(refused.problems, [{ field: 'grant_types', problem: 'confidential_only', value: CC }]);
      const cli = (args: string[]) =>
        runCliInProcess(['clients:create', '--name', 'Billing', '--json', ...args], {
          DATABASE_URL: app.databaseUrl,
          APP_KEY: TEST_APP_KEY,
          APP_URL: ISSUER,
          STORAGE_PATH: app.config.storagePath,
        });
      const created = await cli(['--grant', CC, '--scope', 'posts:read']);
      assert.equal(created.code, 0, created.stderr);
      const json = JSON.parse(created.stdout);
      assert.deepEqual(json.grant_types, [CC]);
      assert.deepEqual(json.redirect_uris, []);
      const tokens = await client.clientCredentialsGrant(
        await serviceParty(app, { clientId: json.client_id, secret: json.client_secret, redirectUri: '' }),
      );
      assert.equal(tokens.scope, undefined);
      const publicOne = await cli(['--grant', CC, '--public']);
      assert.notEqual(publicOne.code, 0);
      assert.match(publicOne.stderr, /needs a confidential client/);
    });

    test('the API authenticates the token, checks its scopes as abilities, and never takes it for a user', async () => {
      const app = ctx();
      const tokens = await client.clientCredentialsGrant(await serviceParty(app, await machine(app)), {
        scope: 'posts:read',
      });
      const write = await app.app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: { ...bearer(tokens.access_token), 'content-type': 'application/json' },
        payload: { title: 't', body: 'b' },
      });
      assert.equal(write.statusCode, 403);
      assert.match(String(write.headers['www-authenticate']), /insufficient_scope/);
      for (const url of ['/api/posts', '/api/user']) {
        const response = await app.app.inject({ url, headers: bearer(tokens.access_token) });
        assert.equal(response.statusCode, 403, url);
        assert.match(response.json().message, /issued to a client/);
      }
      const userinfo = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(tokens.access_token) });
      assert.equal(userinfo.statusCode, 401);
      assert.match(String(userinfo.headers['www-authenticate']), /invalid_token/);
      const forged = `${tokens.access_token.slice(0, -4)}AAAA`;
      assert.equal((await app.app.inject({ url: '/api/user', headers: bearer(forged) })).statusCode, 401);
    });

    test('introspection by its client: active, sub = the client; rotating the secret or deleting the client ends it at once', async () => {
      const app = ctx();
      const rp = await machine(app);
      const config = await serviceParty(app, rp);
      const tokens = await client.clientCredentialsGrant(config, { scope: 'posts:read' });
      const active = await client.tokenIntrospection(config, tokens.access_token);
      assert.equal(active.active, true);
      assert.equal(active.sub, rp.clientId);
      assert.equal(active.client_id, rp.clientId);
      assert.equal(active.scope, 'posts:read');

      // The rotation's own second still counts (iat has whole seconds); the token after it is alive.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const rotated = await app.services.oauth.clients.rotateSecret(rp.clientId, { now: Date.now() });
      assert.ok(rotated && rotated !== 'public');
      const fresh = await serviceParty(app, { ...rp, secret: rotated.secret });
      assert.equal((await client.tokenIntrospection(fresh, tokens.access_token)).active, false);
      const next = await client.clientCredentialsGrant(fresh, { scope: 'posts:read' });
      assert.equal((await client.tokenIntrospection(fresh, next.access_token)).active, true);

      await app.services.oauth.clients.delete(rp.clientId, { now: Date.now() });
      const other = await serviceParty(app, await machine(app));
      assert.equal((await client.tokenIntrospection(other, next.access_token)).active, false);
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(next.access_token) })).statusCode,
        401,
      );
    });

    test('gatehouse_oauth_tokens_total counts each token answer by grant type and result', async () => {
      const app = ctx();
      const rp = await machine(app, 'posts:read');
      const config = await serviceParty(app, rp);
      const count = async () => {
        const response = await app.app.inject({
          url: '/metrics',
          headers: { authorization: `Bearer ${METRICS}` },
        });
        const samples = parseExposition(response.body).samples;
        return ['success', 'invalid_scope', 'unauthorized_client'].map((result) =>
          sampleValue(samples, 'gatehouse_oauth_tokens_total', { grant_type: CC, result }),
        );
      };
      const before = await count();
      await client.clientCredentialsGrant(config, { scope: 'posts:read' });
      await client.clientCredentialsGrant(config, { scope: 'posts:read' });
      await refusal(client.clientCredentialsGrant(config, { scope: 'posts:write' }));
      // A client registered without the grant: the answer is unauthorized_client, and so is the count.
      const person = await registerClient(app);
      const unauthorized = await refusal(
        client.clientCredentialsGrant(await serviceParty(app, person), { scope: 'posts:read' }),
      );
      assert.equal(unauthorized.error, 'unauthorized_client');
      const after = await count();
      assert.deepEqual(
        after.map((value, i) => value - before[i]!),
        [2, 1, 1],
      );
    });
  },
  { env: { METRICS_TOKEN: METRICS } },
);
