import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import * as client from 'openid-client';
import type { ClientInput } from '../../src/oauth/clients.ts';
import type { TestApp } from './app.ts';
import { Browser } from './browser-session.ts';

/** The issuer of every test app (helpers/app.ts APP_URL). */
export const ISSUER = 'http://gatehouse.test';

/**
 * openid-client (the certified relying-party library) talking to a test app through app.inject():
 * its fetches never leave the process. Every request it makes is an ordinary one of the app's.
 */
export function injectFetch(app: FastifyInstance) {
  return async (
    url: string,
    options: { method?: string; headers?: unknown; body?: unknown; redirect?: unknown },
  ) => {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    new Headers(options.headers as ConstructorParameters<typeof Headers>[0]).forEach((value, key) => {
      headers[key] = value;
    });
    const body = options.body;
    const response = await app.inject({
      method: (options.method ?? 'GET') as 'GET',
      url: `${target.pathname}${target.search}`,
      headers: { ...headers, host: target.host },
      ...(body === undefined || body === null
        ? {}
        : { payload: typeof body === 'string' ? body : String(body) }),
    });
    return toResponse(response);
  };
}

function toResponse(response: LightMyRequestResponse): Response {
  const headers = new Headers();
  for (const [key, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(key, String(item));
  }
  const empty = [204, 304].includes(response.statusCode);
  return new Response(empty ? null : response.rawPayload, { status: response.statusCode, headers });
}

export interface RegisteredClient {
  readonly clientId: string;
  readonly secret: string | null;
  readonly redirectUri: string;
}

let clients = 0;

/** Registers a client through the same use case as `clients:create`. */
export async function registerClient(
  app: TestApp,
  input: Partial<ClientInput> = {},
): Promise<RegisteredClient> {
  const redirectUri = input.redirectUris?.[0] ?? `https://rp${++clients}.example/callback`;
  const result = await app.services.oauth.clients.create(
    {
      name: input.name ?? `Relying party ${clients}`,
      redirectUris: input.redirectUris ?? [redirectUri],
      postLogoutRedirectUris: input.postLogoutRedirectUris ?? [],
      backchannelLogoutUri: input.backchannelLogoutUri ?? null,
      grantTypes: input.grantTypes ?? [],
      scope: input.scope ?? 'openid profile email offline_access posts:read posts:write',
      public: input.public ?? false,
      trusted: input.trusted ?? false,
    },
    { now: Date.now() },
  );
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  return { clientId: result.client.clientId, secret: result.secret, redirectUri };
}

/** openid-client's view of the provider for one client (discovery through the app). */
export async function relyingParty(
  app: TestApp,
  registered: RegisteredClient,
): Promise<client.Configuration> {
  const auth = registered.secret === null ? client.None() : client.ClientSecretBasic(registered.secret);
  const metadata = { redirect_uris: [registered.redirectUri] };
  const config = await client.discovery(new URL(ISSUER), registered.clientId, metadata, auth, {
    [client.customFetch]: injectFetch(app.app) as never,
    execute: [client.allowInsecureRequests],
  });
  return config;
}

/** openid-client's view for a confidential client acting as itself (client credentials, introspection). */
export async function serviceParty(
  app: TestApp,
  registered: RegisteredClient,
): Promise<client.Configuration> {
  return client.discovery(
    new URL(ISSUER),
    registered.clientId,
    {},
    client.ClientSecretBasic(registered.secret!),
    {
      [client.customFetch]: injectFetch(app.app) as never,
      execute: [client.allowInsecureRequests],
    },
  );
}

/** A browser (cookie jar over inject) signed in to Gatehouse as `email`. */
export async function signedInBrowser(app: TestApp, email: string, password: string, remember = false) {
  const browser = new Browser(app.app);
  await browser.get('/login');
  const response = await browser.post('/login', { email, password, ...(remember ? { remember: 'on' } : {}) });
  assert.equal(response.statusCode, 302, response.body.slice(0, 300));
  return browser;
}

export interface AuthorizationResult {
  /** The URL the browser was finally sent to (the client's redirect URI with code or error), if any. */
  readonly callback: URL | null;
  /** The last response inside Gatehouse (a login page, a consent page, an error page). */
  readonly last: LightMyRequestResponse;
  readonly verifier: string;
  readonly state: string;
  readonly nonce: string;
}

/**
 * Walks a browser through an authorization request as a real one would: every redirect and `Refresh`
 * inside Gatehouse is followed, and the walk stops at the first address outside it (the client) or at
 * a page that wants a person (login, consent, an error).
 */
export async function authorize(
  browser: Browser,
  config: client.Configuration,
  parameters: Record<string, string> = {},
): Promise<AuthorizationResult> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: String((config.clientMetadata()['redirect_uris'] as string[] | undefined)?.[0]),
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...parameters,
  });
  const { callback, last } = await follow(browser, url.href);
  return { callback, last, verifier, state, nonce };
}

/**
 * Follows redirects and Refresh headers within Gatehouse; stops outside it or at a page. `issuer`: the
 * app's APP_URL, when a suite sets its own (one listening on a port).
 */
export async function follow(
  browser: Browser,
  start: string,
  issuer = ISSUER,
): Promise<{ callback: URL | null; last: LightMyRequestResponse }> {
  let target = new URL(start, issuer);
  for (let hop = 0; hop < 20; hop++) {
    if (target.origin !== issuer) return { callback: target, last: undefined as never };
    const response = await browser.get(`${target.pathname}${target.search}`);
    const next = response.headers.location ?? refreshTarget(response.headers.refresh);
    if (next === undefined) return { callback: null, last: response };
    target = new URL(String(next), target);
  }
  throw new Error('too many redirects');
}

function refreshTarget(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  return /url=(.+)$/i.exec(header)?.[1];
}

/** Submits the consent form of the page `last` shows: Allow or Deny; then follows on. */
export async function answerConsent(
  browser: Browser,
  last: LightMyRequestResponse,
  decision: 'allow' | 'deny',
  issuer = ISSUER,
) {
  const action = /<form method="post" action="(\/oauth\/interaction\/[^"]+)"/.exec(last.body)?.[1];
  assert.ok(action, `no consent form on the page: ${last.body.slice(0, 400)}`);
  const response = await browser.post(action, { decision });
  assert.equal(response.statusCode, 200, response.body.slice(0, 300));
  const next = refreshTarget(response.headers.refresh);
  assert.ok(next, 'the consent moves on by itself');
  return follow(browser, next, issuer);
}

export const xsrfOf = (body: string) => /name="xsrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

/**
 * A person at /device (the device flow, RFC 8628): types the code, confirms it, and answers the
 * consent. The last page.
 */
export async function approveDevice(
  browser: Browser,
  userCode: string,
  decision: 'allow' | 'deny' = 'allow',
  issuer = ISSUER,
) {
  const page = await browser.get('/device');
  assert.equal(page.statusCode, 200, page.body.slice(0, 300));
  const confirm = await browser.post('/device', {
    xsrf: xsrfOf(page.body),
    user_code: userCode.toLowerCase(),
  });
  assert.equal(confirm.statusCode, 200);
  assert.ok(confirm.body.includes(userCode), 'the code is shown back to be checked');
  const go = await browser.post('/device', {
    xsrf: xsrfOf(confirm.body),
    user_code: userCode,
    confirm: 'yes',
  });
  assert.ok(go.headers.location, `no redirect: ${go.statusCode} ${go.body.slice(0, 200)}`);
  const { last } = await follow(browser, String(go.headers.location), issuer);
  assert.match(last.body, /name="decision"/, 'the consent page');
  return (await answerConsent(browser, last, decision, issuer)).last;
}

/** The whole code flow for a signed-in browser that allows everything asked; the token response. */
export async function codeFlow(
  browser: Browser,
  config: client.Configuration,
  parameters: Record<string, string> = {},
) {
  let result = await authorize(browser, config, parameters);
  let callback = result.callback;
  if (callback === null && /name="decision"/.test(result.last.body)) {
    callback = (await answerConsent(browser, result.last, 'allow')).callback;
  }
  assert.ok(
    callback,
    `no callback: ${/<p class="detail">(.*?)<\/p>/s.exec(result.last?.body ?? '')?.[1] ?? result.last?.body.slice(0, 400)}`,
  );
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: result.verifier,
    expectedState: result.state,
    expectedNonce: result.nonce,
  });
  result = { ...result, callback };
  return { tokens, authorization: result };
}

/** The headers by which an answer given before the library is compared with the library's own. */
const ANSWER_HEADERS = [
  'cache-control',
  'content-type',
  'content-security-policy',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'www-authenticate',
  'vary',
  'access-control-allow-origin',
  'access-control-expose-headers',
];

export const answerHeaders = (response: { headers: Record<string, unknown> }) =>
  Object.fromEntries(ANSWER_HEADERS.map((name) => [name, response.headers[name]]));

/** `Authorization: Basic` for a client's id and secret (client_secret_basic). */
export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** POST /oauth/introspect with a form body, the given Authorization and any other headers. */
export const introspectRequest = (
  app: { app: { inject: FastifyInstance['inject'] } },
  authorization: string,
  fields: Record<string, string>,
  extra: Record<string, string> = {},
) =>
  app.app.inject({
    method: 'POST',
    url: '/oauth/introspect',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization, ...extra },
    payload: new URLSearchParams(fields).toString(),
  });

/** A user who consented to a new confidential client, and the tokens of that code flow. */
export async function consentedTokens(app: TestApp, scope = 'openid profile offline_access posts:read') {
  const user = await app.createUser();
  const rp = await registerClient(app);
  const browser = await signedInBrowser(app, user.email, user.password);
  const { tokens } = await codeFlow(browser, await relyingParty(app, rp), { scope, prompt: 'consent' });
  return { user, rp, tokens };
}
