import assert from 'node:assert/strict';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { sendJson, signedInBrowser } from './account.ts';
import type { TestApp } from './app.ts';
import { Browser } from './browser-session.ts';
import { type CeremonyOverrides, SoftwareAuthenticator } from './passkey-authenticator.ts';

/** The origin test apps are configured with (APP_URL in helpers/app.ts). */
export const TEST_ORIGIN = 'http://gatehouse.test';

/** A signed-in browser whose password confirmation is fresh: the passkey management routes open. */
export async function confirmedBrowser(t: TestApp, user?: Awaited<ReturnType<TestApp['createUser']>>) {
  const signed = await signedInBrowser(t, user ? { user } : {});
  const confirmed = await signed.browser.postJson('/user/confirm-password', {
    password: signed.user.password,
  });
  assert.equal(confirmed.statusCode, 204, confirmed.body);
  return signed;
}

/** GET /user/passkeys/options, then the authenticator's answer (not sent yet). */
export async function registrationResponse(
  browser: Browser,
  authenticator: SoftwareAuthenticator,
  overrides: CeremonyOverrides = {},
): Promise<RegistrationResponseJSON> {
  const options = await browser.get('/user/passkeys/options', { accept: 'application/json' });
  assert.equal(options.statusCode, 200, options.body);
  return authenticator.create(options.json(), overrides);
}

/** A passkey registered through the routes; returns its id (the 201 body's). */
export async function enrolPasskey(
  browser: Browser,
  authenticator: SoftwareAuthenticator,
  name = 'Test key',
): Promise<number> {
  const credential = await registrationResponse(browser, authenticator);
  const created = await sendJson(browser, 'POST', '/user/passkeys', { name, credential });
  assert.equal(created.statusCode, 201, created.body);
  return created.json().id as number;
}

/** A guest browser that opened /login (session cookie and CSRF token) and fetched sign-in options. */
export async function guestWithOptions(t: TestApp, headers: Record<string, string> = {}) {
  const browser = new Browser(t.app, headers);
  await browser.get('/login');
  const options = await browser.get('/passkeys/login/options', { accept: 'application/json' });
  assert.equal(options.statusCode, 200, options.body);
  return { browser, options: options.json() };
}

/** A user with a passkey on a fresh authenticator, and that authenticator. */
export async function userWithPasskey(t: TestApp, counts = true) {
  const { user, browser } = await confirmedBrowser(t);
  const authenticator = new SoftwareAuthenticator(TEST_ORIGIN, counts);
  const passkeyId = await enrolPasskey(browser, authenticator);
  return { user, browser, authenticator, passkeyId };
}

export async function passkeyCount(t: TestApp, userId?: number): Promise<number> {
  let query = t.db.selectFrom('passkeys').select((eb) => eb.fn.countAll<number>().as('n'));
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}
