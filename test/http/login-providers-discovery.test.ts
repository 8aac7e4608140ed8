import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createTestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { failureOf, signedInAs, signInThrough, TEST_APP_URL } from '../helpers/login-providers.ts';
import { startUpstreamOidc } from '../helpers/upstream-oidc.ts';

/**
 * docs/guides/login-providers.md: each OpenID provider's discovery document is read at start, without
 * delaying it; one that cannot be reached is logged and its button hidden, and it is tried again in the
 * background (5 s after the first failure) and whenever /auth/{provider} is asked for, until it answers.
 * Not a storage matter: SQLite only.
 */
const acme = await startUpstreamOidc([
  { clientId: 'acme-client', clientSecret: 'acme-secret', redirectUri: `${TEST_APP_URL}/auth/acme/callback` },
]);
after(() => acme.stop());

const env = {
  LOGIN_PROVIDERS: 'acme',
  ACME_CLIENT_ID: 'acme-client',
  ACME_CLIENT_SECRET: 'acme-secret',
  ACME_ISSUER: acme.issuer,
};

test('a provider down at start: logged, no button, “cannot be reached” on /auth; back by itself once it answers', async () => {
  await acme.pause();
  const t = await createTestApp('sqlite', { env });
  try {
    await t.services.identities.providers.settled();
    const warning = t.logs
      .map((line) => JSON.parse(line))
      .find((l) => l.msg?.startsWith('login provider unreachable'));
    assert.ok(warning, 'logged');
    assert.equal(warning.provider, 'acme');
    assert.equal(warning.retryInSeconds, 5);
    assert.doesNotMatch((await t.app.inject({ url: '/login' })).body, /\/auth\/acme/, 'no button');

    const browser = new Browser(t.app);
    const start = await browser.get('/auth/acme');
    assert.equal(failureOf(start), 'unavailable');
    assert.equal(browser.cookies.get('gatehouse_upstream'), undefined, 'no attempt started');
    const page = await t.app.inject({ url: String(start.headers.location) });
    assert.match(page.body, /acme cannot be reached right now/i);

    await acme.resume();
    // No request needed: the background retry (5 s after the first failure) finds it.
    const deadline = Date.now() + 15_000;
    while (t.services.identities.providers.available.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(
      t.services.identities.providers.available.map((p) => p.name),
      ['acme'],
    );
    assert.match((await t.app.inject({ url: '/login' })).body, /href="\/auth\/acme"/);
    assert.ok(t.logs.some((line) => line.includes('login provider reached')));
    acme.signInAs({ sub: 'back-1', email: 'back@example.com', email_verified: true });
    const trip = await signInThrough(new Browser(t.app), 'acme');
    assert.equal(trip.finish?.headers.location, '/dashboard');
  } finally {
    await t.close();
  }
});

test('a provider that comes back is used as soon as someone asks for it, without waiting for the retry', async () => {
  await acme.pause();
  const t = await createTestApp('sqlite', { env });
  try {
    await t.services.identities.providers.settled();
    assert.equal(t.services.identities.providers.available.length, 0);
    await acme.resume();
    acme.signInAs({ sub: 'asked-1', email: 'asked@example.com', email_verified: true });
    const browser = new Browser(t.app);
    const trip = await signInThrough(browser, 'acme');
    assert.equal(trip.finish?.headers.location, '/dashboard');
    assert.ok(await signedInAs(browser));
  } finally {
    await t.close();
  }
});

test('a provider that stops answering after discovery: the sign-in says so and changes nothing', async () => {
  const t = await createTestApp('sqlite', { env });
  try {
    await t.services.identities.providers.settled();
    const browser = new Browser(t.app);
    const start = await browser.get('/auth/acme');
    assert.equal(start.statusCode, 302);
    await acme.pause();
    // The provider "answered" the browser with a code, but its token endpoint is gone.
    const callback = await browser.get('/auth/acme/callback?code=abc&state=x');
    assert.equal(failureOf(callback), 'failed', 'the state is checked first');
    const state = new URL(String((await browser.get('/auth/acme')).headers.location)).searchParams.get(
      'state',
    );
    const down = await browser.get(
      `/auth/acme/callback?code=abc&state=${state}&iss=${encodeURIComponent(acme.issuer)}`,
    );
    assert.equal(failureOf(down), 'unavailable');
    const users = await t.db.selectFrom('users').select('id').execute();
    assert.deepEqual(users, []);
  } finally {
    await acme.resume();
    await t.close();
  }
});
