import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as client from 'openid-client';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { answerHeaders, codeFlow, registerClient, relyingParty, signedInBrowser } from '../helpers/oidc.ts';

/**
 * GET/POST /oauth/userinfo. A plain request with a valid JWT access token of ours in the header is
 * answered before the library (oauth/userinfo.ts, http/oauth/userinfo-direct.ts); everything else is
 * the library's. Both must say the same: the token in a form body always goes to the library, so
 * each scope's answer is compared with the library's own, headers included, and every refusal is the
 * library's (401 invalid_token, 403 insufficient_scope).
 */
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function tokenFor(app: TestApp, scope: string) {
  const user = await app.createUser();
  const rp = await registerClient(app);
  const config = await relyingParty(app, rp);
  const browser = await signedInBrowser(app, user.email, user.password);
  const { tokens } = await codeFlow(browser, config, { scope, prompt: 'consent' });
  return { user, rp, config, tokens, token: tokens.access_token };
}

/** The library's answer: the token in a form body, which the direct answer never takes. */
const libraryAnswer = (app: TestApp, token: string) =>
  app.app.inject({
    method: 'POST',
    url: '/oauth/userinfo',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ access_token: token }).toString(),
  });

await describeApp('oauth userinfo', (ctx) => {
  for (const scope of [
    'openid',
    'openid profile',
    'openid email',
    'openid profile email offline_access posts:read',
  ]) {
    test(`"${scope}": the direct answer is the library's, body and headers`, async () => {
      const app = ctx();
      const { user, token } = await tokenFor(app, scope);
      const direct = await app.services.oauth.userinfo(token);
      assert.ok(direct !== null, 'a plain valid token is answered directly');
      const viaGet = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(token) });
      const viaPost = await app.app.inject({
        method: 'POST',
        url: '/oauth/userinfo',
        headers: bearer(token),
      });
      const library = await libraryAnswer(app, token);
      assert.equal(library.statusCode, 200, library.body);
      for (const response of [viaGet, viaPost]) {
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), library.json());
        assert.deepEqual(answerHeaders(response), answerHeaders(library));
      }
      assert.deepEqual(viaGet.json(), direct);
      assert.equal(direct['sub'], String(user.id));
      assert.equal('email' in direct, scope.includes('email'));
      assert.equal('name' in direct, scope.includes('profile'));
    });
  }

  test('refusals are the library’s: no openid scope, a revoked grant, a disabled user, a query', async () => {
    const app = ctx();
    // A refresh may narrow the scope: an access token without openid.
    const granted = await tokenFor(app, 'openid offline_access posts:read');
    const apiOnly = await client.refreshTokenGrant(granted.config, granted.tokens.refresh_token!, {
      scope: 'posts:read',
    });
    assert.equal(apiOnly.scope, 'posts:read');
    assert.equal(await app.services.oauth.userinfo(apiOnly.access_token), null);
    const noOpenid = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(apiOnly.access_token) });
    assert.equal(noOpenid.statusCode, 403);
    assert.match(String(noOpenid.headers['www-authenticate']), /insufficient_scope/);

    const revoked = await tokenFor(app, 'openid email');
    await app.services.oauth.consents.disconnect(revoked.user.id, revoked.rp.clientId, { now: Date.now() });
    assert.equal(await app.services.oauth.userinfo(revoked.token), null);
    const gone = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(revoked.token) });
    assert.equal(gone.statusCode, 401);
    assert.match(String(gone.headers['www-authenticate']), /invalid_token/);

    const disabled = await tokenFor(app, 'openid email');
    await app.db
      .updateTable('users')
      .set({ disabled_at: Date.now() })
      .where('id', '=', disabled.user.id)
      .execute();
    assert.equal(await app.services.oauth.userinfo(disabled.token), null);
    const off = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(disabled.token) });
    assert.equal(off.statusCode, 401);

    const valid = await tokenFor(app, 'openid');
    const wider = await app.app.inject({ url: '/oauth/userinfo?scope=email', headers: bearer(valid.token) });
    assert.equal(wider.statusCode, 403, 'a query goes to the library, which checks the asked scope');
    const forged = `${valid.token.slice(0, -4)}AAAA`;
    const bad = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(forged) });
    assert.equal(bad.statusCode, 401);
    const twice = await app.app.inject({
      method: 'POST',
      url: '/oauth/userinfo',
      headers: { ...bearer(valid.token), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ access_token: valid.token }).toString(),
    });
    assert.equal(twice.statusCode, 400, 'one token in two places is invalid_request, as the library says');
  });

  test('a token sharing a cached token’s last 43 characters is verified on its own and refused', async () => {
    const app = ctx();
    const user = await app.createUser();
    const rp = await registerClient(app);
    const browser = await signedInBrowser(app, user.email, user.password);
    const { tokens } = await codeFlow(browser, await relyingParty(app, rp), { scope: 'openid email' });
    const token = tokens.access_token;
    const verify = app.services.oauth.verifyAccessToken;
    assert.ok(await verify(token), 'cached now');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...claims, scope: 'openid email posts:write' })).toString(
      'base64url',
    );
    const forged = `${header}.${widened}.${signature}`;
    assert.equal(forged.slice(-43), token.slice(-43));
    assert.equal(await verify(forged), null);
    assert.equal(await verify(`${token} `), null);
    assert.equal(await verify(`x${token}`), null);
    assert.ok(await verify(token), 'still cached and accepted');
    const userinfo = await app.app.inject({
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${forged}` },
    });
    assert.equal(userinfo.statusCode, 401);
  });

  test('a request with an Origin goes to the library; a deleted client’s token is refused', async () => {
    const app = ctx();
    const user = await app.createUser();
    const rp = await registerClient(app);
    const browser = await signedInBrowser(app, user.email, user.password);
    const { tokens } = await codeFlow(browser, await relyingParty(app, rp), { scope: 'openid email' });
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const withOrigin = await app.app.inject({
      url: '/oauth/userinfo',
      headers: { ...bearer, origin: 'https://evil.example' },
    });
    assert.notEqual(withOrigin.statusCode, 200, 'an Origin goes to the library (its CORS answer)');
    await app.services.oauth.clients.delete(rp.clientId, { now: Date.now() });
    const gone = await app.app.inject({ url: '/oauth/userinfo', headers: bearer });
    assert.equal(gone.statusCode, 401);
  });
});
