import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import {
  authorize,
  codeFlow,
  follow,
  ISSUER,
  registerClient,
  relyingParty,
  signedInBrowser,
} from '../helpers/oidc.ts';
import { enableTwoFactor } from '../helpers/two-factor.ts';

/**
 * The token endpoint and what its tokens open, through HTTP on every dialect (docs/guides/
 * oidc-provider.md "Tokens"): single-use codes bound to their client, rotated refresh tokens whose reuse
 * revokes the grant, RFC 9068 access tokens that Gatehouse's API and userinfo accept and refuse at once
 * when revoked, introspection and revocation.
 */
const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** OpenID Connect Core §3.1.3.6: the left half of the SHA-256 of the access token (RS256, ES256). */
const atHash = (token: string) =>
  createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

async function setUp(app: TestApp, scope = 'openid profile email offline_access posts:read') {
  const user = await app.createUser();
  const rp = await registerClient(app);
  const config = await relyingParty(app, rp);
  const browser = await signedInBrowser(app, user.email, user.password);
  const { tokens, authorization } = await codeFlow(browser, config, { scope, prompt: 'consent' });
  return { user, rp, config, browser, tokens, authorization };
}

/** A refresh at the token endpoint by hand: status and JSON. */
async function refresh(app: TestApp, rp: { clientId: string; secret: string | null }, token: string) {
  const response = await app.app.inject({
    method: 'POST',
    url: '/oauth/token',
    ...form({ grant_type: 'refresh_token', refresh_token: token }),
    headers: { ...form({}).headers, authorization: basic(rp.clientId, rp.secret!) },
  });
  return { status: response.statusCode, body: response.json() as Record<string, string> };
}

await describeApp(
  'oauth tokens',
  (ctx) => {
    test('the access token is an RFC 9068 JWT, verifiable with the JWKS; lifetime OIDC_ACCESS_TOKEN_TTL', async () => {
      const app = ctx();
      const { user, rp, tokens } = await setUp(app);
      assert.equal(tokens.expires_in, 120);
      assert.equal(decodeProtectedHeader(tokens.access_token).typ, 'at+jwt');
      const jwks = (await app.app.inject({ url: '/oauth/jwks' })).json();
      const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks), {
        issuer: ISSUER,
        audience: ISSUER,
        typ: 'at+jwt',
      });
      assert.equal(payload.sub, String(user.id));
      assert.equal(payload['client_id'], rp.clientId);
      assert.equal(payload['scope'], 'openid profile email posts:read');
      assert.equal(payload.exp! - payload.iat!, 120);
      assert.ok(payload.jti);
    });

    test('the ID token: sub, aud, nonce, auth_time, sid and amr from how the person signed in', async () => {
      const app = ctx();
      const { user, rp, tokens, authorization } = await setUp(app);
      const claims = tokens.claims()!;
      assert.equal(claims.sub, String(user.id));
      assert.equal(claims.aud, rp.clientId);
      assert.equal(claims.nonce, authorization.nonce);
      assert.ok(typeof claims['sid'] === 'string' && claims['sid'].length > 10);
      assert.deepEqual(claims['amr'], ['pwd']);
      assert.ok(Math.abs(Number(claims.auth_time) - Date.now() / 1000) < 60);
      assert.equal(claims['email'], user.email);
      assert.equal(claims['name'], user.name);
      assert.equal(claims['at_hash'], atHash(tokens.access_token));

      // Two factors: the password, then a code.
      const other = await app.createUser();
      const enrolled = await enableTwoFactor(app, other);
      const browser = new Browser(app.app);
      await browser.get('/login');
      await browser.post('/login', { email: other.email, password: other.password });
      await browser.get('/two-factor-challenge');
      const passed = await browser.post('/two-factor-challenge', { code: enrolled.code(1) });
      assert.equal(passed.statusCode, 302, passed.body.slice(0, 200));
      const config = await relyingParty(app, rp);
      const second = await codeFlow(browser, config, { scope: 'openid' });
      assert.deepEqual(second.tokens.claims()?.['amr'], ['pwd', 'otp', 'mfa']);
    });

    test('amr and auth_time after the sign-in of a registration and after a password change', async () => {
      const app = ctx();
      const rp = await registerClient(app, { trusted: true });
      const config = await relyingParty(app, rp);
      // Registering signs the person in with the password just chosen.
      const browser = new Browser(app.app);
      await browser.get('/register');
      const password = 'a long and new password 1';
      const email = `registered-${Date.now()}@example.com`;
      const registered = await browser.post('/register', {
        name: 'New Person',
        email,
        password,
        password_confirmation: password,
      });
      assert.equal(registered.statusCode, 302, registered.body.slice(0, 200));
      const first = (await codeFlow(browser, config, { scope: 'openid' })).tokens.claims()!;
      assert.deepEqual(first['amr'], ['pwd']);
      assert.ok(Math.abs(Number(first.auth_time) - Date.now() / 1000) < 60);
      // A password change renews the session id (fixation); how the person signed in stays.
      await app.db
        .updateTable('users')
        .set({ email_verified_at: Date.now() })
        .where('email', '=', email)
        .execute();
      assert.equal((await browser.get('/profile/security')).statusCode, 200);
      const changed = await browser.post('/user/password', {
        _method: 'PUT',
        current_password: password,
        password: `${password} changed`,
        password_confirmation: `${password} changed`,
      });
      assert.equal(changed.statusCode, 302, changed.body.slice(0, 200));
      const second = (await codeFlow(browser, config, { scope: 'openid' })).tokens.claims()!;
      assert.deepEqual(second['amr'], ['pwd']);
      assert.equal(second.auth_time, first.auth_time);
    });

    test('userinfo answers the claims of the token’s scopes; /api/user and /api/posts take the token, its scopes as abilities', async () => {
      const app = ctx();
      const { user, config, tokens } = await setUp(app, 'openid email posts:read');
      const info = await client.fetchUserInfo(config, tokens.access_token, String(user.id));
      assert.deepEqual(info, { sub: String(user.id), email: user.email, email_verified: true });
      const me = await app.app.inject({ url: '/api/user', headers: bearer(tokens.access_token) });
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().id, user.id);
      assert.equal(
        (await app.app.inject({ url: '/api/posts', headers: bearer(tokens.access_token) })).statusCode,
        200,
      );
      const write = await app.app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: bearer(tokens.access_token),
        payload: { title: 't', body: 'b' },
      });
      assert.equal(write.statusCode, 403, 'posts:write was not granted');
      const list = await app.app.inject({ url: '/api/tokens', headers: bearer(tokens.access_token) });
      assert.equal(list.statusCode, 401, 'token management is not a client’s business');
    });

    test('a code is single-use: a second redemption is invalid_grant and revokes what the first issued', async () => {
      const app = ctx();
      const user = await app.createUser();
      const rp = await registerClient(app);
      const config = await relyingParty(app, rp);
      const browser = await signedInBrowser(app, user.email, user.password);
      await codeFlow(browser, config, { scope: 'openid offline_access', prompt: 'consent' });
      const again = await authorize(browser, config, {
        scope: 'openid offline_access posts:read',
        prompt: 'consent',
      });
      const action = /action="(\/oauth\/interaction\/[^"]+)"/.exec(again.last.body)![1]!;
      const allowed = await browser.post(action, { decision: 'allow' });
      const { callback } = await follow(browser, String(allowed.headers.refresh).replace(/^0;url=/, ''));
      const code = callback!.searchParams.get('code')!;
      const redeem = () =>
        app.app.inject({
          method: 'POST',
          url: '/oauth/token',
          ...form({
            grant_type: 'authorization_code',
            code,
            redirect_uri: rp.redirectUri,
            code_verifier: again.verifier,
          }),
          headers: { ...form({}).headers, authorization: basic(rp.clientId, rp.secret!) },
        });
      const first = await redeem();
      assert.equal(first.statusCode, 200, first.body);
      const issued = first.json();
      const replay = await redeem();
      assert.equal(replay.statusCode, 400);
      assert.equal(replay.json().error, 'invalid_grant');
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(issued.access_token) })).statusCode,
        401,
      );
      const userinfo = await app.app.inject({ url: '/oauth/userinfo', headers: bearer(issued.access_token) });
      assert.equal(userinfo.statusCode, 401);
      assert.match(String(userinfo.headers['www-authenticate']), /invalid_token/);
      assert.equal((await refresh(app, rp, issued.refresh_token)).body.error, 'invalid_grant');
    });

    test('a code is bound to its client, redirect_uri and code_verifier (Authentik CVE-2023-48228, Zitadel GHSA-xqxv)', async () => {
      const app = ctx();
      const user = await app.createUser();
      const rp = await registerClient(app, { trusted: true });
      const other = await registerClient(app, { trusted: true });
      const config = await relyingParty(app, rp);
      const browser = await signedInBrowser(app, user.email, user.password);
      const attempt = async (fields: Record<string, string>, who = rp) => {
        const flow = await authorize(browser, config);
        const code = flow.callback!.searchParams.get('code')!;
        const response = await app.app.inject({
          method: 'POST',
          url: '/oauth/token',
          ...form({
            grant_type: 'authorization_code',
            code,
            redirect_uri: rp.redirectUri,
            code_verifier: flow.verifier,
            ...fields,
          }),
          headers: { ...form({}).headers, authorization: basic(who.clientId, who.secret!) },
        });
        return response;
      };
      for (const [fields, who, label] of [
        [{}, other, 'another client'],
        [{ redirect_uri: `${rp.redirectUri}/x` }, rp, 'another redirect_uri'],
        [{ code_verifier: 'x'.repeat(43) }, rp, 'a wrong verifier'],
        [{ code_verifier: '' }, rp, 'no verifier'],
      ] as const) {
        const response = await attempt(fields as Record<string, string>, who);
        assert.equal(response.statusCode, 400, label);
        assert.equal(
          response.json().error,
          label === 'no verifier' ? 'invalid_grant' : 'invalid_grant',
          label,
        );
      }
      const rows = await app.db
        .selectFrom('oauth_models')
        .selectAll()
        .where('kind', '=', 'AuthorizationCode')
        .execute();
      for (const row of rows) {
        if (row.expires_at !== null)
          assert.equal(row.expires_at - row.created_at, 60_000, 'a code lives 60 s');
      }
    });

    test('refresh tokens: only with offline_access and prompt=consent', async () => {
      const app = ctx();
      const user = await app.createUser();
      const rp = await registerClient(app, { trusted: true });
      const config = await relyingParty(app, rp);
      const browser = await signedInBrowser(app, user.email, user.password);
      const without = await codeFlow(browser, config, { scope: 'openid' });
      assert.equal(without.tokens.refresh_token, undefined);
      const noPrompt = await codeFlow(browser, config, { scope: 'openid offline_access' });
      assert.equal(
        noPrompt.tokens.refresh_token,
        undefined,
        'offline_access without prompt=consent is dropped',
      );
      const with_ = await codeFlow(browser, config, { scope: 'openid offline_access', prompt: 'consent' });
      assert.ok(with_.tokens.refresh_token);
    });

    test('the ID token of a refresh carries at_hash of the new access token, and validates', async () => {
      const app = ctx();
      const { config, tokens } = await setUp(app);
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      const claims = refreshed.claims();
      assert.ok(claims, 'an ID token is issued on refresh');
      assert.notEqual(refreshed.access_token, tokens.access_token);
      assert.equal(claims['at_hash'], atHash(refreshed.access_token));
    });

    test('refresh tokens rotate on every use; the rotated one coming back revokes the whole grant, audited', async () => {
      const app = ctx();
      const { user, rp, tokens } = await setUp(app);
      const first = await refresh(app, rp, tokens.refresh_token!);
      assert.equal(first.status, 200);
      assert.notEqual(first.body.refresh_token, tokens.refresh_token);
      const second = await refresh(app, rp, first.body.refresh_token!);
      assert.equal(second.status, 200);
      const reuse = await refresh(app, rp, tokens.refresh_token!);
      assert.equal(reuse.status, 400);
      assert.equal(reuse.body.error, 'invalid_grant');
      assert.equal(
        (await refresh(app, rp, second.body.refresh_token!)).body.error,
        'invalid_grant',
        'the newest is gone too',
      );
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(second.body.access_token!) })).statusCode,
        401,
        'and every access token of the grant',
      );
      const audit = await app.db
        .selectFrom('audit_log')
        .select(['subject_id', 'details'])
        .where('event', '=', 'oauth.refresh_token.reused')
        .execute();
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.subject_id, user.id);
      assert.equal(JSON.parse(audit[0]!.details!).client_id, rp.clientId);
    });

    test('two uses of one refresh token at once: one wins, the grant is revoked for both', async () => {
      const app = ctx();
      const { rp, tokens } = await setUp(app);
      const results = await Promise.all(
        Array.from({ length: 5 }, () => refresh(app, rp, tokens.refresh_token!)),
      );
      const won = results.filter((r) => r.status === 200);
      assert.ok(won.length <= 1, `${won.length} requests got tokens`);
      assert.ok(results.filter((r) => r.body.error === 'invalid_grant').length >= 4);
      for (const winner of won) {
        assert.equal((await refresh(app, rp, winner.body.refresh_token!)).body.error, 'invalid_grant');
      }
    });

    test('a resource other than Gatehouse is invalid_target and uses up neither the code nor the refresh token', async () => {
      const app = ctx();
      const user = await app.createUser();
      const rp = await registerClient(app, { trusted: true });
      const config = await relyingParty(app, rp);
      const browser = await signedInBrowser(app, user.email, user.password);
      const flow = await authorize(browser, config, { scope: 'openid offline_access', prompt: 'consent' });
      const redeem = (fields: Record<string, string>) =>
        app.app.inject({
          method: 'POST',
          url: '/oauth/token',
          ...form({
            grant_type: 'authorization_code',
            code: flow.callback!.searchParams.get('code')!,
            redirect_uri: rp.redirectUri,
            code_verifier: flow.verifier,
            ...fields,
          }),
          headers: { ...form({}).headers, authorization: basic(rp.clientId, rp.secret!) },
        });
      for (const resource of ['https://api.other.example', 'not a URL']) {
        const refused = await redeem({ resource });
        assert.equal(refused.statusCode, 400, resource);
        assert.equal(refused.json().error, 'invalid_target', resource);
      }
      const redeemed = await redeem({ resource: ISSUER });
      assert.equal(redeemed.statusCode, 200, `the code is still good: ${redeemed.body}`);
      const tokens = redeemed.json() as Record<string, string>;
      const misdirected = await app.app.inject({
        method: 'POST',
        url: '/oauth/token',
        ...form({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          resource: 'https://api.other.example',
        }),
        headers: { ...form({}).headers, authorization: basic(rp.clientId, rp.secret!) },
      });
      assert.equal(misdirected.json().error, 'invalid_target');
      // Had the refused request rotated the token, this would be a reuse: the whole grant revoked.
      const refreshed = await refresh(app, rp, tokens.refresh_token!);
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(tokens.access_token!) })).statusCode,
        200,
      );
      const reused = await app.db
        .selectFrom('audit_log')
        .select('id')
        .where('event', '=', 'oauth.refresh_token.reused')
        .where('subject_id', '=', user.id)
        .execute();
      assert.equal(reused.length, 0);
    });

    test('a refresh token is bound to its client; its life is counted from the first of its chain', async () => {
      const app = ctx();
      const { rp, tokens } = await setUp(app);
      const other = await registerClient(app);
      const stolen = await refresh(app, other, tokens.refresh_token!);
      assert.equal(stolen.body.error, 'invalid_grant');
      const expiry = async (token: string) =>
        (
          await app.db
            .selectFrom('oauth_models')
            .select('expires_at')
            .where('kind', '=', 'RefreshToken')
            .where('id_hash', '=', sha256Hex(token))
            .executeTakeFirstOrThrow()
        ).expires_at!;
      const before = await expiry(tokens.refresh_token!);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const next = await refresh(app, rp, tokens.refresh_token!);
      assert.equal(next.status, 200, 'the legitimate client still refreshes');
      const after = await expiry(next.body.refresh_token!);
      assert.ok(
        Math.abs(after - before) <= 1000,
        `rotation does not extend the chain (${after - before} ms)`,
      );
    });

    test('introspection: active for the client’s own live token, inactive for anything else', async () => {
      const app = ctx();
      const { rp, config, tokens } = await setUp(app);
      const own = await client.tokenIntrospection(config, tokens.access_token);
      assert.equal(own.active, true);
      assert.equal(own.client_id, rp.clientId);
      assert.equal((await client.tokenIntrospection(config, tokens.refresh_token!)).active, true);
      const other = await registerClient(app);
      const foreign = await client.tokenIntrospection(await relyingParty(app, other), tokens.access_token);
      assert.deepEqual(foreign, { active: false });
      assert.deepEqual(await client.tokenIntrospection(config, 'not-a-token'), { active: false });
      await client.tokenRevocation(await relyingParty(app, other), tokens.access_token);
      assert.equal(
        (await client.tokenIntrospection(config, tokens.access_token)).active,
        true,
        'another client cannot revoke it',
      );
      await client.tokenRevocation(config, tokens.refresh_token!);
      assert.deepEqual(await client.tokenIntrospection(config, tokens.access_token), { active: false });
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(tokens.access_token) })).statusCode,
        401,
      );
    });

    test('revocation answers 200 for anything; revoking an access token ends its grant', async () => {
      const app = ctx();
      const { rp, tokens } = await setUp(app);
      for (const token of ['garbage', 'a.b.c', tokens.access_token.slice(0, -2)]) {
        const response = await app.app.inject({
          method: 'POST',
          url: '/oauth/revoke',
          ...form({ token }),
          headers: { ...form({}).headers, authorization: basic(rp.clientId, rp.secret!) },
        });
        assert.equal(response.statusCode, 200, token);
      }
      const revoked = await app.app.inject({
        method: 'POST',
        url: '/oauth/revoke',
        ...form({ token: tokens.access_token, token_type_hint: 'access_token' }),
        headers: { ...form({}).headers, authorization: basic(rp.clientId, rp.secret!) },
      });
      assert.equal(revoked.statusCode, 200);
      assert.equal(
        (await app.app.inject({ url: '/oauth/userinfo', headers: bearer(tokens.access_token) })).statusCode,
        401,
      );
      assert.equal((await refresh(app, rp, tokens.refresh_token!)).body.error, 'invalid_grant');
    });

    test('deleting the client refuses its access tokens at once', async () => {
      const app = ctx();
      const { rp, tokens } = await setUp(app);
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(tokens.access_token) })).statusCode,
        200,
      );
      assert.equal(await app.services.oauth.clients.delete(rp.clientId, { now: Date.now() }), true);
      assert.equal(
        (await app.app.inject({ url: '/api/user', headers: bearer(tokens.access_token) })).statusCode,
        401,
      );
      assert.equal(
        (await app.app.inject({ url: '/oauth/userinfo', headers: bearer(tokens.access_token) })).statusCode,
        401,
      );
    });

    test('a forged or foreign JWT is refused everywhere', async () => {
      const app = ctx();
      const { tokens } = await setUp(app);
      const [header, payload] = tokens.access_token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      const forged = [
        `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: '999', scope: 'openid posts:write' })).toString('base64url')}.${tokens.access_token.split('.')[2]}`,
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`,
        `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'at+jwt' })).toString('base64url')}.${payload}.AAAAAAAAAAAAAAAAAAAA`,
      ];
      for (const token of forged) {
        assert.equal((await app.app.inject({ url: '/api/user', headers: bearer(token) })).statusCode, 401);
        assert.equal(
          (await app.app.inject({ url: '/oauth/userinfo', headers: bearer(token) })).statusCode,
          401,
        );
      }
    });
  },
  { env: { OIDC_ACCESS_TOKEN_TTL: '120' } },
);
