import { after } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sessionKey } from '../../src/auth/sessions/sessions.ts';
import { createPayloadCipher } from '../../src/mail/payload-cipher.ts';
import type { TestApp } from './app.ts';
import type { Browser } from './browser-session.ts';
import { type GithubStandIn, startGithubStandIn } from './github-stand-in.ts';
import { startUpstreamOidc, throughProvider, type UpstreamOidc } from './upstream-oidc.ts';

export const TEST_APP_URL = 'http://gatehouse.test';

/** The upstream providers of the login-provider suites, each run by the test on a loopback port. */
export interface Upstreams {
  /** A generic OpenID provider (oidc-provider), NAME_TRUST_EMAIL left at its default (false). */
  readonly acme: UpstreamOidc;
  /** oidc-provider standing in for Google (GOOGLE_ISSUER): trusted for e-mail by default. */
  readonly google: UpstreamOidc;
  /** oidc-provider standing in for Microsoft Entra ID (MICROSOFT_ISSUER): not trusted for e-mail. */
  readonly microsoft: UpstreamOidc;
  readonly github: GithubStandIn;
  /** The environment that configures all four in Gatehouse. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

let serial = 0;

/** A person nobody used before in this run: a subject and an address, and a number for ids. */
export function fresh(label: string) {
  serial++;
  const stamp = Date.now();
  return { n: serial, sub: `${label}-${serial}-${stamp}`, email: `${label}${serial}.${stamp}@example.com` };
}

/** The upstream providers for the tests of one file, stopped after them. */
export async function upstreamsForThisFile(): Promise<Upstreams> {
  const upstreams = await startUpstreams();
  after(() => upstreams.stop());
  return upstreams;
}

export async function startUpstreams(appUrl = TEST_APP_URL): Promise<Upstreams> {
  const client = (name: string) => ({
    clientId: `${name}-client`,
    clientSecret: `${name}-secret-0123456789`,
    redirectUri: `${appUrl}/auth/${name}/callback`,
  });
  const [acme, google, microsoft, github] = await Promise.all([
    startUpstreamOidc([client('acme')]),
    startUpstreamOidc([client('google')]),
    startUpstreamOidc([client('microsoft')]),
    startGithubStandIn(client('github')),
  ]);
  const credentials = (name: string) => ({
    [`${name.toUpperCase()}_CLIENT_ID`]: client(name).clientId,
    [`${name.toUpperCase()}_CLIENT_SECRET`]: client(name).clientSecret,
  });
  return {
    acme,
    google,
    microsoft,
    github,
    env: {
      LOGIN_PROVIDERS: 'github,google,microsoft,acme',
      ...credentials('github'),
      ...credentials('google'),
      ...credentials('microsoft'),
      ...credentials('acme'),
      GITHUB_URL: github.url,
      GOOGLE_ISSUER: google.issuer,
      MICROSOFT_ISSUER: microsoft.issuer,
      ACME_ISSUER: acme.issuer,
      ACME_LABEL: 'Acme ID',
    },
    async stop() {
      await Promise.all([acme.stop(), google.stop(), microsoft.stop(), github.stop()]);
    },
  };
}

export interface SignInOptions {
  /** `/auth/{provider}` query: remember=1, link=1. */
  readonly query?: string;
  /** Changes the authorization request on its way to the provider (a man in the middle). */
  readonly alterRequest?: (url: URL) => void;
  /** Changes the callback on its way back (an attacker's link, a mix-up). */
  readonly alterCallback?: (url: URL) => void;
}

export interface SignInTrip {
  /** The answer of /auth/{provider}. */
  readonly start: LightMyRequestResponse;
  /** The callback URL the provider sent the browser to (before alterCallback). */
  readonly callback: URL | null;
  /** The answer of the callback, or null when the start did not go to the provider. */
  readonly finish: LightMyRequestResponse | null;
}

/**
 * A browser signing in at `provider`: /auth/{provider} → the provider (its own cookies, the account set
 * with signInAs) → the callback, opened in the same browser.
 */
export async function signInThrough(
  browser: Browser,
  provider: string,
  options: SignInOptions = {},
): Promise<SignInTrip> {
  const start = await browser.get(`/auth/${provider}${options.query ? `?${options.query}` : ''}`);
  const location = providerUrlOf(start);
  if (location === null) return { start, callback: null, finish: null };
  const authorization = new URL(location);
  options.alterRequest?.(authorization);
  const callback = await throughProvider(authorization.href, TEST_APP_URL);
  const delivered = new URL(callback);
  options.alterCallback?.(delivered);
  const finish = await browser.get(`${delivered.pathname}${delivered.search}`);
  return { start, callback, finish };
}

/**
 * Where /auth/{provider} sent the browser at the provider: its 302, or the Refresh header of the page a
 * link passes through; null when it went nowhere (back to our own pages).
 */
export function providerUrlOf(start: LightMyRequestResponse): string | null {
  const refresh = start.headers.refresh;
  const location =
    start.statusCode === 302
      ? start.headers.location
      : typeof refresh === 'string'
        ? refresh.replace(/^0;url=/, '')
        : undefined;
  return typeof location === 'string' && !location.startsWith('/') ? location : null;
}

/** Opens a callback URL (one a provider sent to some browser) in `browser`. */
export function openCallback(browser: Browser, callback: URL): Promise<LightMyRequestResponse> {
  return browser.get(`${callback.pathname}${callback.search}`);
}

/** Where a failed sign-in sent the browser: its reason, or null when it did not go to /login with one. */
export function failureOf(response: LightMyRequestResponse | null): string | null {
  const location = response?.headers.location;
  if (typeof location !== 'string' || !location.startsWith('/login?')) return null;
  return new URL(location, TEST_APP_URL).searchParams.get('sign_in_error');
}

/** The user this browser's web session is signed in as (GET /api/user as the site's own SPA), or null. */
export async function signedInAs(browser: Browser): Promise<number | null> {
  const me = await browser.get('/api/user', { accept: 'application/json', referer: `${TEST_APP_URL}/` });
  return me.statusCode === 200 ? (me.json().id as number) : null;
}

/** What a sign-in may change: compared before and after an attack to show that nothing did. */
export async function accountsState(t: TestApp) {
  const count = async (table: 'users' | 'identities') =>
    Number(
      (
        await t.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const signedIn = await t.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', 'is not', null)
    .executeTakeFirstOrThrow();
  const events = await t.db
    .selectFrom('audit_log')
    .select('event')
    .where('event', 'in', [
      'login.succeeded',
      'identity.linked',
      'user.registered',
      'login.two_factor_challenged',
    ])
    .execute();
  return {
    users: await count('users'),
    identities: await count('identities'),
    signedInSessions: Number(signedIn.n),
    events: events.length,
  };
}

/** The newest mail of `kind` queued to `email`, opened (subject, text), waiting a little for late ones. */
export async function latestMail(t: TestApp, email: string, kind: string) {
  for (let tries = 0; tries < 50; tries++) {
    const row = await t.db
      .selectFrom('mail_outbox')
      .select(['payload'])
      .where('recipient', '=', email)
      .where('kind', '=', kind)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (row !== undefined)
      return JSON.parse(createPayloadCipher(t.config.appKey).open(row.payload)) as {
        subject: string;
        text: string;
      };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return null;
}

/** Audit rows of `event` about `userId`, details parsed. */
export async function auditOf(t: TestApp, event: string, userId: number) {
  const rows = await t.db
    .selectFrom('audit_log')
    .select(['details', 'actor_id'])
    .where('event', '=', event)
    .where('subject_id', '=', userId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    actor: row.actor_id,
    details: row.details === null ? {} : JSON.parse(row.details),
  }));
}

/** The values this browser's web session row holds (its `data`), or null without a row. */
export async function sessionValues(t: TestApp, browser: Browser): Promise<Record<string, unknown> | null> {
  const id = browser.cookies.get('gatehouse_session');
  if (id === undefined) return null;
  const row = await t.db
    .selectFrom('sessions')
    .select('data')
    .where('id', '=', sessionKey(id))
    .executeTakeFirst();
  return row === undefined ? null : (JSON.parse(row.data) as Record<string, unknown>);
}
