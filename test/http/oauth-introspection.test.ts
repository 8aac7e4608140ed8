import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { describeApp, type TestApp } from '../helpers/app.ts';
import {
  answerHeaders,
  basicAuth,
  codeFlow,
  introspectRequest,
  registerClient,
  relyingParty,
  signedInBrowser,
} from '../helpers/oidc.ts';

/**
 * POST /oauth/introspect. A client introspecting a JWT access token with client_secret_basic is
 * answered before the library (oauth/introspection.ts, http/oauth/introspection-direct.ts), after
 * the body was read and put back (form-peek.ts); everything else is the library's. The same request
 * with `token_type_hint=refresh_token` always goes to the library (which answers our JWTs through
 * structured-tokens.ts), so both answers are compared, headers included; and requests the direct
 * answer reads but declines reach the library with their body intact, also over a real socket.
 */
const FORM = 'application/x-www-form-urlencoded';

async function setUp(app: TestApp) {
  const user = await app.createUser();
  const rp = await registerClient(app);
  const browser = await signedInBrowser(app, user.email, user.password);
  const { tokens } = await codeFlow(browser, await relyingParty(app, rp), {
    scope: 'openid profile offline_access posts:read',
    prompt: 'consent',
  });
  const resourceServer = await registerClient(app, {
    trusted: true,
    grantTypes: ['client_credentials'],
    scope: 'posts:read',
    redirectUris: [],
  });
  return { user, rp, tokens, resourceServer };
}

/** One POST over a real socket, the body written in two pieces a moment apart. */
function postInPieces(port: number, authorization: string, body: string) {
  return new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/oauth/introspect',
        headers: { 'content-type': FORM, authorization, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    const half = Math.floor(body.length / 2);
    request.write(body.slice(0, half));
    setTimeout(() => request.end(body.slice(half)), 30);
  });
}

await describeApp('oauth introspection', (ctx) => {
  test('the direct answer is the library’s: own token, a resource server, foreign, forged, revoked', async () => {
    const app = ctx();
    const { rp, tokens, resourceServer } = await setUp(app);
    const other = await registerClient(app);
    const forged = `${tokens.access_token.slice(0, -4)}AAAA`;
    const cases: [string, string, string][] = [
      ['own token', basicAuth(rp.clientId, rp.secret!), tokens.access_token],
      ['resource server', basicAuth(resourceServer.clientId, resourceServer.secret!), tokens.access_token],
      ['foreign', basicAuth(other.clientId, other.secret!), tokens.access_token],
      ['forged', basicAuth(rp.clientId, rp.secret!), forged],
    ];
    const compare = async ([name, authorization, token]: [string, string, string]) => {
      assert.ok(await app.services.oauth.introspection(credentialsOf(authorization), token), name);
      const library = await introspectRequest(app, authorization, {
        token,
        token_type_hint: 'refresh_token',
      });
      assert.equal(library.statusCode, 200, `${name}: ${library.body}`);
      for (const fields of [{ token }, { token, token_type_hint: 'access_token' }] as Record<
        string,
        string
      >[]) {
        const direct = await introspectRequest(app, authorization, fields);
        assert.equal(direct.statusCode, 200, name);
        assert.deepEqual(direct.json(), library.json(), name);
        assert.deepEqual(answerHeaders(direct), answerHeaders(library), name);
      }
      return library.json().active as boolean;
    };
    assert.deepEqual(await Promise.all(cases.map(compare)), [true, true, false, false]);
    await app.services.oauth.consents.disconnect(
      Number((await introspectRequest(app, cases[0]![1], { token: tokens.access_token })).json().sub),
      rp.clientId,
      { now: Date.now() },
    );
    assert.equal(await compare(cases[0]!), false, 'revoked');
  });

  test('what it declines reaches the library with its body: a wrong secret, a refresh token, a client_id in the body', async () => {
    const app = ctx();
    const { rp, tokens } = await setUp(app);
    const wrong = await introspectRequest(app, basicAuth(rp.clientId, 'not-the-secret'), {
      token: tokens.access_token,
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error, 'invalid_client');
    assert.match(String(wrong.headers['www-authenticate']), /^Basic/);
    assert.equal(
      await app.services.oauth.introspection(credentialsOf(basicAuth(rp.clientId, 'x')), tokens.access_token),
      null,
    );

    const refresh = await introspectRequest(app, basicAuth(rp.clientId, rp.secret!), {
      token: tokens.refresh_token!,
    });
    assert.equal(refresh.statusCode, 200);
    assert.equal(refresh.json().active, true, 'the library read the token from the body put back');
    assert.equal(refresh.json().client_id, rp.clientId);

    const twice = await introspectRequest(app, basicAuth(rp.clientId, rp.secret!), {
      token: tokens.access_token,
      client_id: rp.clientId,
    });
    assert.equal(twice.statusCode, 200, twice.body);
    assert.equal(twice.json().active, true);
    const missing = await introspectRequest(app, basicAuth(rp.clientId, rp.secret!), {
      token_type_hint: 'access_token',
    });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, 'invalid_request');

    // Over a real socket, the body arriving in two pieces: answered directly, and declined.
    await app.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.app.server.address() as AddressInfo;
    const body = (token: string) => new URLSearchParams({ token }).toString();
    const direct = await postInPieces(port, basicAuth(rp.clientId, rp.secret!), body(tokens.access_token));
    assert.deepEqual([direct.status, direct.json['active']], [200, true]);
    const declined = await postInPieces(
      port,
      basicAuth(rp.clientId, rp.secret!),
      body(tokens.refresh_token!),
    );
    assert.deepEqual([declined.status, declined.json['active']], [200, true]);
    const refused = await postInPieces(port, basicAuth(rp.clientId, 'wrong'), body(tokens.access_token));
    assert.deepEqual([refused.status, refused.json['error']], [401, 'invalid_client']);
  });
});

function credentialsOf(authorization: string) {
  const decoded = Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}
