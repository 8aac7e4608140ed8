import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import * as client from 'openid-client';
import { describeApp, type TestApp } from '../helpers/app.ts';
import {
  codeFlow,
  ISSUER,
  registerClient,
  relyingParty,
  serviceParty,
  signedInBrowser,
} from '../helpers/oidc.ts';

/**
 * Resource servers and browser apps (docs/guides/oidc-provider.md "Introspection", "CORS"): a
 * resource-server client introspects every access token, other clients only their own; the token,
 * userinfo, JWKS, revocation and discovery endpoints answer CORS for exactly the origins of
 * registered redirect URIs, and another origin gets no CORS header at all.
 */
const SPA = 'https://spa.example';
const EVIL = 'https://evil.example';

const corsHeaders = (response: LightMyRequestResponse) =>
  Object.keys(response.headers).filter((name) => name.startsWith('access-control-'));

async function userTokens(app: TestApp, redirectUri = `${SPA}/callback`) {
  const user = await app.createUser();
  const rp = await registerClient(app, { public: true, redirectUris: [redirectUri] });
  const config = await relyingParty(app, rp);
  const browser = await signedInBrowser(app, user.email, user.password);
  const { tokens } = await codeFlow(browser, config, {
    scope: 'openid profile offline_access posts:read',
    prompt: 'consent',
  });
  return { user, rp, config, tokens };
}

const machine = (app: TestApp, trusted: boolean, grantTypes = ['client_credentials']) =>
  registerClient(app, {
    trusted,
    grantTypes,
    scope: 'posts:read',
    ...(grantTypes.includes('authorization_code') ? {} : { redirectUris: [] }),
  });

await describeApp('oauth introspection and CORS', (ctx) => {
  test('a resource server introspects every access token; other clients only their own', async () => {
    const app = ctx();
    const { user, rp, tokens } = await userTokens(app);
    const resourceServer = await serviceParty(app, await machine(app, true));
    const seen = await client.tokenIntrospection(resourceServer, tokens.access_token);
    assert.equal(seen.active, true);
    assert.equal(seen.sub, String(user.id));
    assert.equal(seen.client_id, rp.clientId);
    assert.equal(seen.scope, 'openid profile posts:read');
    assert.equal(seen.iss, ISSUER);

    const worker = await machine(app, false);
    const workerToken = await client.clientCredentialsGrant(await serviceParty(app, worker), {
      scope: 'posts:read',
    });
    const machineSeen = await client.tokenIntrospection(resourceServer, workerToken.access_token);
    assert.equal(machineSeen.active, true);
    assert.equal(machineSeen.sub, worker.clientId);

    // Not resource servers: an untrusted service, a trusted client that also signs people in.
    const untrusted = await serviceParty(app, worker);
    assert.equal((await client.tokenIntrospection(untrusted, tokens.access_token)).active, false);
    const webApp = await serviceParty(
      app,
      await machine(app, true, ['authorization_code', 'client_credentials']),
    );
    assert.equal((await client.tokenIntrospection(webApp, tokens.access_token)).active, false);

    // Never another client's refresh token; never anything revoked or unknown.
    assert.equal((await client.tokenIntrospection(resourceServer, tokens.refresh_token!)).active, false);
    assert.equal((await client.tokenIntrospection(resourceServer, 'no-such-token')).active, false);
    await app.services.oauth.clients.delete(rp.clientId, { now: Date.now() });
    assert.equal((await client.tokenIntrospection(resourceServer, tokens.access_token)).active, false);
  });

  test('discovery and the JWKS: CORS for a registered redirect-URI origin, no CORS header for another', async () => {
    const app = ctx();
    await registerClient(app, { public: true, redirectUris: [`${SPA}/callback`] });
    for (const url of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server',
      '/oauth/jwks',
    ]) {
      const allowed = await app.app.inject({ url, headers: { origin: SPA } });
      assert.equal(allowed.statusCode, 200);
      assert.equal(allowed.headers['access-control-allow-origin'], SPA, url);
      assert.match(String(allowed.headers.vary), /Origin/i);
      const foreign = await app.app.inject({ url, headers: { origin: EVIL } });
      assert.equal(foreign.statusCode, 200);
      assert.deepEqual(corsHeaders(foreign), [], url);
      const preflight = await app.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: EVIL, 'access-control-request-method': 'GET' },
      });
      assert.deepEqual(corsHeaders(preflight), [], url);
    }
  });

  test('token, userinfo and revocation: the SPA’s origin gets CORS (preflight too), another origin none', async () => {
    const app = ctx();
    const { rp, tokens } = await userTokens(app);
    const preflight = (origin: string, url: string) =>
      app.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    for (const url of ['/oauth/token', '/oauth/userinfo', '/oauth/revoke']) {
      const ok = await preflight(SPA, url);
      assert.equal(ok.statusCode, 204, url);
      assert.equal(ok.headers['access-control-allow-origin'], SPA, url);
      assert.match(String(ok.headers['access-control-allow-methods']), /POST/);
      const foreign = await preflight(EVIL, url);
      assert.deepEqual(corsHeaders(foreign), [], url);
    }

    const userinfo = (origin: string) =>
      app.app.inject({
        url: '/oauth/userinfo',
        headers: { origin, authorization: `Bearer ${tokens.access_token}` },
      });
    const read = await userinfo(SPA);
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['access-control-allow-origin'], SPA);
    assert.deepEqual(corsHeaders(await userinfo(EVIL)), []);

    const refresh = (origin: string) =>
      app.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          client_id: rp.clientId,
        }).toString(),
      });
    const foreign = await refresh(EVIL);
    assert.deepEqual(corsHeaders(foreign), []);
    const refreshed = await refresh(SPA);
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    assert.equal(refreshed.headers['access-control-allow-origin'], SPA);

    const revoke = await app.app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      headers: { origin: SPA, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        token: refreshed.json().refresh_token,
        client_id: rp.clientId,
      }).toString(),
    });
    assert.equal(revoke.statusCode, 200);
    assert.equal(revoke.headers['access-control-allow-origin'], SPA);
  });

  test('introspection answers no CORS; an origin stops being allowed when its client is deleted', async () => {
    const app = ctx();
    const rp = await registerClient(app, { redirectUris: ['https://gone.example/cb'] });
    const introspect = await app.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: {
        origin: 'https://gone.example',
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${rp.clientId}:${rp.secret}`).toString('base64')}`,
      },
      payload: 'token=unknown',
    });
    assert.equal(introspect.statusCode, 200);
    assert.deepEqual(corsHeaders(introspect), []);
    const jwks = () => app.app.inject({ url: '/oauth/jwks', headers: { origin: 'https://gone.example' } });
    assert.equal((await jwks()).headers['access-control-allow-origin'], 'https://gone.example');
    await app.services.oauth.clients.delete(rp.clientId, { now: Date.now() });
    assert.deepEqual(corsHeaders(await jwks()), []);
  });
});
