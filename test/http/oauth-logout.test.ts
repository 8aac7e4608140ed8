import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { signedInAdmin } from '../helpers/account.ts';
import { createTestApp, describeApp, type TestApp } from '../helpers/app.ts';
import type { Browser } from '../helpers/browser-session.ts';
import { codeFlow, follow, ISSUER, registerClient, relyingParty, signedInBrowser } from '../helpers/oidc.ts';

/**
 * RP-initiated logout and back-channel logout through HTTP (docs/guides/oidc-provider.md "Logout"):
 * only a registered post_logout_redirect_uri, the Gatehouse session ends with the provider's, and every
 * door that ends a Gatehouse session sends each client it signed in a logout token through the durable
 * outbox, and revokes what the provider issued in it.
 */

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** A relying party's back-channel logout endpoint: records every logout_token, answers `status`. */
interface Receiver {
  readonly url: string;
  readonly tokens: string[];
  status: number;
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  const tokens: string[] = [];
  const state = { status: 200 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const token = new URLSearchParams(body).get('logout_token');
      if (request.method === 'POST' && token && state.status < 300) tokens.push(token);
      response.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/backchannel`,
    tokens,
    get status() {
      return state.status;
    },
    set status(value) {
      state.status = value;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A client with back-channel logout, signed in by `browser` with offline access: its tokens. */
async function signedInRp(app: TestApp, browser: Browser, backchannel: Receiver | null) {
  const rp = await registerClient(app, {
    trusted: true,
    backchannelLogoutUri: backchannel?.url ?? null,
    postLogoutRedirectUris: ['https://rp.example/signed-out?from=gatehouse'],
  });
  const config = await relyingParty(app, rp);
  const { tokens } = await codeFlow(browser, config, { scope: 'openid offline_access', prompt: 'consent' });
  return { rp, config, tokens };
}

/** The logout tokens delivered, verified against the JWKS, as their claims. */
async function delivered(app: TestApp, at: Receiver, clientId: string) {
  await app.services.oauth.logouts.drain();
  const jwks = createLocalJWKSet((await app.app.inject({ url: '/oauth/jwks' })).json());
  return Promise.all(
    at.tokens.map(async (token) => {
      assert.equal(decodeProtectedHeader(token).typ, 'logout+jwt');
      const { payload } = await jwtVerify(token, jwks, { issuer: ISSUER, audience: clientId });
      assert.deepEqual(payload['events'], { [EVENT]: {} });
      assert.equal(payload['nonce'], undefined, 'a logout token never has a nonce');
      assert.ok(typeof payload.jti === 'string' && typeof payload.iat === 'number');
      return payload;
    }),
  );
}

const refresh = (app: TestApp, rp: { clientId: string; secret: string | null }, token: string) =>
  app.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${rp.clientId}:${rp.secret}`).toString('base64')}`,
    },
    payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString(),
  });

const userinfo = (app: TestApp, accessToken: string) =>
  app.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${accessToken}` } });

/** Opens the logout URL and answers its confirmation page (`yes`: sign out of Gatehouse). */
async function rpLogout(browser: Browser, url: URL, yes = true) {
  const page = await browser.get(`${url.pathname}${url.search}`);
  assert.equal(page.statusCode, 200, page.body.slice(0, 300));
  const action = /<form method="post" action="([^"]+)"/.exec(page.body)?.[1];
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(action && xsrf, 'a confirmation form');
  return browser.post(new URL(action, ISSUER).pathname, { xsrf, ...(yes ? { logout: 'yes' } : {}) });
}

await describeApp('oauth logout', (ctx) => {
  const receivers: Receiver[] = [];
  const listen = async () => {
    const r = await receiver();
    receivers.push(r);
    return r;
  };
  test.after(async () => {
    for (const r of receivers) await r.close();
  });

  test('RP-initiated logout: back to the registered URI with state; both sessions end; every client hears', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    const [hearsA, hearsB] = [await listen(), await listen()];
    const a = await signedInRp(app, browser, hearsA);
    const b = await signedInRp(app, browser, hearsB);
    const quiet = await signedInRp(app, browser, null);
    const url = client.buildEndSessionUrl(a.config, {
      id_token_hint: a.tokens.id_token!,
      post_logout_redirect_uri: 'https://rp.example/signed-out?from=gatehouse',
      state: 'st@te 1',
    });
    const out = await rpLogout(browser, url);
    assert.equal(out.statusCode, 303);
    const back = new URL(String(out.headers.location));
    assert.equal(`${back.origin}${back.pathname}`, 'https://rp.example/signed-out');
    assert.equal(back.searchParams.get('from'), 'gatehouse');
    assert.equal(back.searchParams.get('state'), 'st@te 1');
    // The Gatehouse session is gone: the account needs a login, a silent authorization fails.
    assert.equal((await browser.get('/dashboard')).statusCode, 302);
    const silent = await follow(
      browser,
      client.buildAuthorizationUrl(quiet.config, {
        redirect_uri: quiet.rp.redirectUri,
        scope: 'openid',
        prompt: 'none',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }).href,
    );
    assert.equal(silent.callback?.searchParams.get('error'), 'login_required');
    for (const [rp, at] of [
      [a, hearsA],
      [b, hearsB],
    ] as const) {
      const claims = await delivered(app, at, rp.rp.clientId);
      assert.equal(claims.length, 1, 'one logout token per client');
      assert.equal(claims[0]!.sub, String(user.id));
      assert.equal(claims[0]!['sid'], rp.tokens.claims()!['sid']);
    }
    // A logout keeps offline access (OpenID Connect Core §11): the refresh token still works.
    assert.equal((await refresh(app, b.rp, b.tokens.refresh_token!)).statusCode, 200);
    const rows = await app.db
      .selectFrom('oauth_logout_outbox')
      .selectAll()
      .where('client_id', 'in', [a.rp.clientId, b.rp.clientId, quiet.rp.clientId])
      .execute();
    assert.equal(rows.length, 2);
    assert.ok(
      rows.every((row) => row.sent_at !== null && row.payload === ''),
      'delivered and wiped',
    );
  });

  test('post_logout_redirect_uri must be a registered one, exactly: anything else is an error page here', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    const { config, tokens } = await signedInRp(app, browser, null);
    for (const uri of [
      'https://evil.example/',
      'https://rp.example/signed-out',
      'https://rp.example/signed-out?from=gatehouse&x=1',
      'https://rp.example/signed-out?from=gatehouse#x',
      'https://RP.example/signed-out?from=gatehouse',
      'https://rp.example/signed-out/..;/?from=gatehouse',
      'javascript:alert(1)',
    ]) {
      const url = client.buildEndSessionUrl(config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: uri,
      });
      const json = await browser.get(`${url.pathname}${url.search}`);
      assert.equal(json.statusCode, 400, uri);
      assert.equal(json.headers.location, undefined, uri);
      assert.equal(json.json().error, 'invalid_request', uri);
      const page = await browser.get(`${url.pathname}${url.search}`, { accept: 'text/html' });
      assert.equal(page.statusCode, 400, uri);
      assert.equal(page.headers.location, undefined, uri);
      assert.match(page.body, /post_logout_redirect_uri/, uri);
      // A sign-out request, said as one (it read "This sign-in request cannot be completed").
      assert.match(page.body, /<h1>This sign-out request cannot be completed<\/h1>/, uri);
    }
    // A hint that is not a token of ours is refused, not a 5xx.
    const forged = await browser.get('/oauth/logout?id_token_hint=eyJhbGciOiJub25lIn0.e30.');
    assert.equal(forged.statusCode, 400);
    // Still signed in: nothing was ended.
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
    // Without id_token_hint or client_id nobody can tell whose URI it is: it is dropped, and the
    // logout ends on Gatehouse's own page (RP-Initiated Logout §3), never on the URI.
    const bare = new URL(`${ISSUER}/oauth/logout`);
    bare.searchParams.set('post_logout_redirect_uri', 'https://evil.example/');
    bare.searchParams.set('state', 'x');
    const out = await rpLogout(browser, bare);
    assert.equal(out.statusCode, 303);
    assert.equal(new URL(String(out.headers.location), ISSUER).href, `${ISSUER}/oauth/logout/success`);
  });

  test('a native client’s loopback post_logout_redirect_uri is exact too: another port is refused', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    // A loopback redirect URI makes the client native, whose redirect_uri may change port (RFC 8252
    // §7.3); the library extends that to post-logout URIs, which the contract wants exact.
    const rp = await registerClient(app, {
      trusted: true,
      redirectUris: ['http://127.0.0.1:7000/callback'],
      postLogoutRedirectUris: ['http://127.0.0.1:7000/signed-out'],
    });
    const config = await relyingParty(app, rp);
    const { tokens } = await codeFlow(browser, config, { scope: 'openid' });
    for (const uri of ['http://127.0.0.1:7001/signed-out', 'http://127.0.0.1/signed-out']) {
      const url = client.buildEndSessionUrl(config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: uri,
      });
      const refused = await browser.get(`${url.pathname}${url.search}`);
      assert.equal(refused.statusCode, 400, uri);
      assert.equal(refused.json().error, 'invalid_request', uri);
    }
    const url = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'http://127.0.0.1:7000/signed-out',
      state: 's',
    });
    const out = await rpLogout(browser, url);
    assert.equal(out.headers.location, 'http://127.0.0.1:7000/signed-out?state=s');
  });

  test('"No" at the confirmation signs out of that client only; the Gatehouse session stays', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    const { config, tokens } = await signedInRp(app, browser, null);
    const url = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! });
    const out = await rpLogout(browser, url, false);
    assert.equal(out.statusCode, 303);
    assert.equal((await browser.get('/dashboard')).statusCode, 200);
  });

  test('logging out of Gatehouse sends a logout token to the clients with a back-channel URI only', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    const hears = await listen();
    const rp = await signedInRp(app, browser, hears);
    const quiet = await signedInRp(app, browser, null);
    await browser.get('/dashboard');
    assert.equal((await browser.post('/logout')).statusCode, 302);
    const claims = await delivered(app, hears, rp.rp.clientId);
    assert.deepEqual(
      claims.map((c) => [c.sub, c['sid']]),
      [[String(user.id), rp.tokens.claims()!['sid']]],
    );
    assert.equal(
      await app.db
        .selectFrom('oauth_logout_outbox')
        .select('id')
        .where('client_id', 'in', [rp.rp.clientId, quiet.rp.clientId])
        .execute()
        .then((r) => r.length),
      1,
    );
  });

  test('"log out other browsers": their clients hear, and what the provider issued there is revoked (CVE-2025-29928)', async () => {
    const app = ctx();
    const user = await app.createUser();
    const here = await signedInBrowser(app, user.email, user.password);
    const there = await signedInBrowser(app, user.email, user.password);
    const hears = await listen();
    const other = await signedInRp(app, there, hears);
    const mine = await signedInRp(app, here, null);
    assert.equal((await userinfo(app, other.tokens.access_token)).statusCode, 200);
    await here.get('/dashboard');
    const ended = await here.app.inject({
      method: 'DELETE',
      url: '/user/other-browser-sessions',
      payload: { password: user.password },
      headers: { accept: 'application/json', cookie: here.cookieHeader(), 'x-csrf-token': here.csrf! },
    });
    assert.ok(ended.statusCode < 300, ended.body);
    const claims = await delivered(app, hears, other.rp.clientId);
    assert.equal(claims[0]!['sid'], other.tokens.claims()!['sid']);
    // Revoked, offline access included: the refresh token and the access token stop at once.
    const refused = await refresh(app, other.rp, other.tokens.refresh_token!);
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error, 'invalid_grant');
    assert.equal((await userinfo(app, other.tokens.access_token)).statusCode, 401);
    // This browser's are untouched.
    assert.equal((await refresh(app, mine.rp, mine.tokens.refresh_token!)).statusCode, 200);
  });

  test('a session ended from the account page or the panel: logout token sent, its tokens revoked', async () => {
    const app = ctx();
    const user = await app.createUser();
    const owner = await signedInBrowser(app, user.email, user.password);
    const { browser: admin } = await signedInAdmin(app);
    for (const door of ['account', 'panel'] as const) {
      const there = await signedInBrowser(app, user.email, user.password);
      const hears = await listen();
      const rp = await signedInRp(app, there, hears);
      if (door === 'account') {
        await owner.get('/dashboard');
        const list = (await owner.get('/user/sessions', { accept: 'application/json' })).json() as {
          id: string;
          isCurrent?: boolean;
          is_current?: boolean;
        }[];
        const target = list.find((s) => !(s.isCurrent ?? s.is_current));
        assert.ok(target);
        const ended = await owner.post(`/user/sessions/${target.id}`, { _method: 'DELETE' });
        assert.equal(ended.statusCode, 302);
      } else {
        // The Gatehouse session `there` signed in with: the one its provider session follows.
        const [bound] = await app.db
          .selectFrom('oauth_models')
          .select('session_binding')
          .where('kind', '=', 'Session')
          .where('account_id', '=', String(user.id))
          .execute();
        await admin.get(`/admin/users/${user.id}`);
        const ended = await admin.post(`/admin/users/${user.id}/sessions/${bound!.session_binding}/end`);
        assert.equal(ended.statusCode, 302, ended.body.slice(0, 300));
      }
      const claims = await delivered(app, hears, rp.rp.clientId);
      assert.equal(claims.length, 1, door);
      assert.equal(claims[0]!['sid'], rp.tokens.claims()!['sid'], door);
      assert.equal((await refresh(app, rp.rp, rp.tokens.refresh_token!)).statusCode, 400, door);
    }
    assert.equal((await owner.get('/dashboard')).statusCode, 200, 'the owner browser stays signed in');
  });

  test('a password change and an account disabled in the panel: logout tokens sent, tokens revoked', async () => {
    const app = ctx();
    const { browser: admin } = await signedInAdmin(app);
    for (const door of ['password change', 'disabled'] as const) {
      const user = await app.createUser();
      const browser = await signedInBrowser(app, user.email, user.password);
      const hears = await listen();
      const rp = await signedInRp(app, browser, hears);
      if (door === 'password change') {
        await browser.get('/dashboard');
        const changed = await browser.post('/user/password', {
          _method: 'PUT',
          current_password: user.password,
          password: 'a-new-Password-that-is-long-9',
          password_confirmation: 'a-new-Password-that-is-long-9',
        });
        assert.equal(changed.statusCode, 302, changed.body.slice(0, 300));
      } else {
        await admin.get(`/admin/users/${user.id}`);
        assert.equal((await admin.post(`/admin/users/${user.id}/disable`)).statusCode, 302);
      }
      const claims = await delivered(app, hears, rp.rp.clientId);
      assert.equal(claims.length, 1, door);
      assert.equal(claims[0]!['sid'], rp.tokens.claims()!['sid'], door);
      assert.equal((await refresh(app, rp.rp, rp.tokens.refresh_token!)).statusCode, 400, door);
    }
  });

  test('disconnecting a connected app sends it a logout token; the other apps keep their session', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    const [hears, other] = [await listen(), await listen()];
    const rp = await signedInRp(app, browser, hears);
    const kept = await signedInRp(app, browser, other);
    await browser.get('/dashboard');
    const gone = await browser.post(`/user/connected-apps/${rp.rp.clientId}`, { _method: 'DELETE' });
    assert.equal(gone.statusCode, 302, gone.body.slice(0, 300));
    const claims = await delivered(app, hears, rp.rp.clientId);
    assert.deepEqual(
      claims.map((c) => [c.sub, c['sid']]),
      [[String(user.id), rp.tokens.claims()!['sid']]],
    );
    assert.deepEqual(await delivered(app, other, kept.rp.clientId), [], 'only the disconnected app hears');
    assert.equal((await browser.get('/dashboard')).statusCode, 200, 'the Gatehouse session stays');
  });

  test('account deletion sends the logout tokens', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    const hears = await listen();
    const rp = await signedInRp(app, browser, hears);
    await browser.get('/dashboard');
    const deleted = await browser.post('/user', { _method: 'DELETE', password: user.password });
    assert.equal(deleted.statusCode, 302, deleted.body.slice(0, 300));
    const claims = await delivered(app, hears, rp.rp.clientId);
    assert.deepEqual(
      claims.map((c) => c.sub),
      [String(user.id)],
    );
  });

  test('an unreachable client is retried with backoff; the notice survives a restart of the process', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = await signedInBrowser(app, user.email, user.password);
    const hears = await listen();
    const rp = await signedInRp(app, browser, hears);
    hears.status = 503;
    await browser.get('/dashboard');
    await browser.post('/logout');
    await app.services.oauth.logouts.drain();
    const ours = (db: TestApp['db']) =>
      db.selectFrom('oauth_logout_outbox').selectAll().where('client_id', '=', rp.rp.clientId).execute();
    const [failed] = await ours(app.db);
    assert.equal(failed!.attempts, 1);
    assert.equal(failed!.last_error, 'HTTP 503');
    assert.equal(failed!.sent_at, null);
    assert.ok(failed!.available_at > Date.now(), 'due again later, not at once');
    await app.services.oauth.logouts.drain();
    assert.equal(hears.tokens.length, 0, 'not retried before its time');
    // The process dies while the row is claimed (kill -9): the lease runs out, another instance delivers.
    await app.db
      .updateTable('oauth_logout_outbox')
      .set({ available_at: Date.now() - 1, locked_until: Date.now() - 1 })
      .where('client_id', '=', rp.rp.clientId)
      .execute();
    hears.status = 200;
    const second = await createTestApp('sqlite', { databaseUrl: app.databaseUrl });
    try {
      const claims = await delivered(second, hears, rp.rp.clientId);
      assert.equal(claims.length, 1);
      assert.equal(claims[0]!['sid'], rp.tokens.claims()!['sid']);
      const [sent] = await ours(second.db);
      assert.equal(sent!.attempts, 2);
      assert.ok(sent!.sent_at);
    } finally {
      await second.close();
    }
  });
});
