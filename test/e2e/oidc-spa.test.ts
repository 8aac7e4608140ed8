import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import type { Browser, Page, Request } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { bundleForBrowser } from '../helpers/bundle.ts';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { freePort } from '../helpers/smtp-sink.ts';
import { type StaticServer, serveStatic } from '../helpers/static-server.ts';

/**
 * A browser SPA relying party with oidc-client-ts (docs/guides/oidc-provider.md "Single-page apps") in
 * real Chromium: a public client (no secret) served from its own origin, the authorization code flow
 * with PKCE S256 through Gatehouse's /login and consent page, the token and userinfo endpoints called
 * cross-origin (CORS for the origins of registered redirect URIs), a refresh-token rotation, and an
 * RP-initiated logout that ends the Gatehouse session and comes back to the app.
 */
interface SpaTokens {
  accessToken: string;
  refreshToken: string | null;
  idToken: string | null;
  profile: Record<string, unknown>;
  scope: string;
}

type SpaWindow = {
  spa: {
    signIn(): Promise<void>;
    user(): Promise<SpaTokens | null>;
    refresh(): Promise<{ ok: boolean; error?: string } & Partial<SpaTokens>>;
    userinfo(): Promise<{ ok: boolean; status?: number; body?: Record<string, unknown>; error?: string }>;
    signOut(): Promise<void>;
  };
  spaReady: Promise<string>;
};
/** Starts an app action that leaves the page (the evaluate returns before the navigation begins). */
const startNavigation = (page: Page, action: 'signIn' | 'signOut') =>
  page.evaluate((name) => {
    setTimeout(() => void (globalThis as unknown as SpaWindow).spa[name](), 0);
  }, action);
const spaOf = (page: Page) => page.evaluate(() => (globalThis as unknown as SpaWindow).spaReady);

describe('an oidc-client-ts SPA signs in through Gatehouse in Chromium', { skip: chromiumSkip() }, () => {
  let gatehouse: TestApp;
  let issuer: string;
  let spa: StaticServer;
  let browser: Browser;
  let page: Page;
  let user: Awaited<ReturnType<TestApp['createUser']>>;
  let clientId: string;
  const requests: Request[] = [];

  before(async () => {
    const port = await freePort();
    issuer = `http://localhost:${port}`;
    gatehouse = await createTestApp('sqlite', { env: { APP_URL: issuer } });
    await gatehouse.app.listen({ host: '127.0.0.1', port });
    user = await gatehouse.createUser({ name: 'Ada Lovelace' });
    const bundle = await bundleForBrowser(new URL('./fixtures/oidc-spa.js', import.meta.url).pathname);
    // The SPA's origin must be known to register it, and the page must name the client: the server
    // starts with a placeholder page that is filled in once the client exists.
    const files: Record<string, { type: string; body: string }> = {
      '/': { type: 'text/html; charset=utf-8', body: '' },
      '/app.js': { type: 'text/javascript; charset=utf-8', body: bundle },
    };
    spa = await serveStatic(files);
    const created = await gatehouse.services.oauth.clients.create(
      {
        name: 'Photo SPA',
        redirectUris: [`${spa.origin}/callback`],
        postLogoutRedirectUris: [`${spa.origin}/signed-out`],
        backchannelLogoutUri: null,
        grantTypes: ['authorization_code', 'refresh_token'],
        scope: null,
        public: true,
        trusted: false,
      },
      { now: Date.now() },
    );
    assert.ok(created.ok && created.secret === null, 'a public client has no secret');
    clientId = created.client.clientId;
    files['/']!.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Photo SPA</title>
<script>window.OIDC_SETTINGS = ${JSON.stringify({ authority: issuer, clientId })};</script>
<script src="/app.js" defer></script></head>
<body><main><h1>Photo SPA</h1><p id="who">…</p></main></body></html>`;
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    page.on('request', (request) => requests.push(request));
  });

  after(async () => {
    await browser?.close();
    await gatehouse?.close();
    await spa?.close();
  });

  test('sign-in: PKCE S256 to /oauth/authorize, /login, consent, back with a code, tokens and userinfo cross-origin', async () => {
    await page.goto(spa.origin);
    assert.equal(await spaOf(page), 'ready');
    assert.equal(await page.textContent('#who'), 'Signed out');
    await Promise.all([page.waitForURL((url) => url.pathname === '/login'), startNavigation(page, 'signIn')]);
    const authorize = requests.find((r) => r.url().startsWith(`${issuer}/oauth/authorize?`));
    assert.ok(authorize, 'the app sent the browser to the authorization endpoint');
    const query = new URL(authorize.url()).searchParams;
    assert.equal(query.get('client_id'), clientId);
    assert.equal(query.get('code_challenge_method'), 'S256');
    assert.match(query.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(query.get('response_type'), 'code');

    await page.fill('#field-email', user.email);
    await page.fill('#field-password', user.password);
    await Promise.all([
      page.waitForSelector('button[name=decision][value=allow]'),
      page.click('form[action="/login"] button[type=submit]'),
    ]);
    assert.match((await page.textContent('h1')) ?? '', /Photo SPA/, 'the consent page names the app');
    await Promise.all([
      page.waitForURL((url) => url.origin === spa.origin),
      page.click('button[name=decision][value=allow]'),
    ]);
    assert.equal(await spaOf(page), 'signed-in');
    assert.equal(await page.textContent('#who'), `Signed in as Ada Lovelace <${user.email}>`);

    const tokenCall = requests.find((r) => r.url() === `${issuer}/oauth/token` && r.method() === 'POST');
    assert.ok(tokenCall, 'the code was exchanged from the page');
    const form = new URLSearchParams(tokenCall.postData() ?? '');
    assert.equal(form.get('grant_type'), 'authorization_code');
    assert.ok((form.get('code_verifier') ?? '').length >= 43, 'with the PKCE verifier');
    assert.equal(tokenCall.headers()['authorization'], undefined, 'a public client sends no secret');
    assert.ok(
      requests.some((r) => r.url() === `${issuer}/oauth/userinfo`),
      'userinfo was read',
    );

    const tokens = await page.evaluate(() => (globalThis as unknown as SpaWindow).spa.user());
    assert.ok(tokens?.refreshToken, 'offline_access gave a refresh token');
    const claims = decodeJwt(tokens.accessToken);
    assert.equal(claims['client_id'], clientId);
    assert.equal(claims['sub'], String(user.id));
    const info = await page.evaluate(() => (globalThis as unknown as SpaWindow).spa.userinfo());
    assert.equal(info.status, 200, JSON.stringify(info));
    assert.equal(info.body?.['email'], user.email);
  });

  test('refresh: the refresh token is rotated from the page; the old one is refused', async () => {
    const before = await page.evaluate(() => (globalThis as unknown as SpaWindow).spa.user());
    const refreshed = await page.evaluate(() => (globalThis as unknown as SpaWindow).spa.refresh());
    assert.ok(refreshed.ok, refreshed.error);
    assert.ok(refreshed.accessToken && refreshed.accessToken !== before!.accessToken);
    assert.ok(refreshed.refreshToken && refreshed.refreshToken !== before!.refreshToken, 'rotated');
    const refreshCall = requests.filter((r) => r.url() === `${issuer}/oauth/token`).at(-1)!;
    assert.equal(new URLSearchParams(refreshCall.postData() ?? '').get('grant_type'), 'refresh_token');
    const info = await page.evaluate(() => (globalThis as unknown as SpaWindow).spa.userinfo());
    assert.equal(info.status, 200, 'the new access token works');
    // The rotated-away refresh token, presented again, is reuse: invalid_grant (and the grant ends).
    const reuse = await gatehouse.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', host: new URL(issuer).host },
      payload: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: before!.refreshToken!,
        client_id: clientId,
      }).toString(),
    });
    assert.equal(reuse.json().error, 'invalid_grant');
  });

  test('sign-out: RP-initiated logout ends the Gatehouse session and returns to the app', async () => {
    // The reuse above revoked the grant: sign in once more (the session is alive, only consent is asked).
    await page.goto(spa.origin);
    await spaOf(page);
    await Promise.all([
      page.waitForSelector('button[name=decision][value=allow]'),
      startNavigation(page, 'signIn'),
    ]);
    await Promise.all([
      page.waitForURL((url) => url.origin === spa.origin),
      page.click('button[name=decision][value=allow]'),
    ]);
    assert.equal(await spaOf(page), 'signed-in');
    await Promise.all([
      page.waitForSelector('button[name=logout][value=yes]'),
      startNavigation(page, 'signOut'),
    ]);
    const logout = requests.filter((r) => r.url().startsWith(`${issuer}/oauth/logout?`)).at(-1);
    assert.ok(logout);
    const params = new URL(logout.url()).searchParams;
    assert.ok(params.get('id_token_hint'));
    assert.equal(params.get('post_logout_redirect_uri'), `${spa.origin}/signed-out`);
    await Promise.all([
      page.waitForURL((url) => url.origin === spa.origin),
      page.click('button[name=logout][value=yes]'),
    ]);
    assert.match(await spaOf(page), /^signed-out/);
    assert.equal(await page.textContent('#who'), 'Signed out');
    await page.goto(`${issuer}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/login', 'the Gatehouse session ended too');
  });
});
