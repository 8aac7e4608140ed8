import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { docsBlock, fillIn } from '../helpers/docs-config.ts';
import { proxyHttpScenarios } from '../helpers/forward-auth-scenarios.ts';
import type { StackPorts } from '../helpers/forward-auth-stack.ts';
import { clientFor, type ForwardAuthStack, startForwardAuthStack } from '../helpers/forward-auth-stack.ts';
import { USER_HEADERS } from '../helpers/protected-app.ts';
import { fromDockerLabels, fromFileProvider, type TraefikConfig } from '../helpers/traefik-config.ts';
import { startTraefikModel } from '../helpers/traefik-forward-auth.ts';

/**
 * docs/integrations/forward-auth.md for Traefik, which is not in Debian: Gatehouse (a real server process)
 * behind a model of Traefik's forwardAuth middleware (test/helpers/traefik-forward-auth.ts), driven by the
 * two Traefik configurations of docs/integrations/traefik.md. Traefik's documentation names the request
 * headers its ForwardAuth sends (Middlewares → ForwardAuth → "Forward-Request Headers"):
 * X-Forwarded-Method, -Proto, -Host, -Uri and -For; and it "returns the response from the authentication server" when that is not 2xx.
 */
const HOSTS: ReadonlyArray<readonly [string, string]> = [
  ['auth.example.com', 'auth.gatehouse.test'],
  ['app.example.com', 'app.gatehouse.test'],
];

const configurations: Record<string, (ports: StackPorts) => TraefikConfig> = {
  'file provider': (ports) =>
    fromFileProvider(
      fillIn(docsBlock('integrations/traefik.md', 'traefik-file'), [
        ...HOSTS,
        ['http://127.0.0.1:3000', `http://127.0.0.1:${ports.gatehouse}`],
        ['http://127.0.0.1:8080', `http://127.0.0.1:${ports.app}`],
      ]),
    ),
  'Docker labels': (ports) =>
    fromDockerLabels(
      fillIn(docsBlock('integrations/traefik.md', 'traefik-labels'), [
        ...HOSTS,
        ['http://gatehouse:3000', `http://127.0.0.1:${ports.gatehouse}`],
      ]),
      { gatehouse: `http://127.0.0.1:${ports.gatehouse}`, app: `http://127.0.0.1:${ports.app}` },
    ),
};

for (const [kind, configuration] of Object.entries(configurations)) {
  describe(`forward auth behind Traefik's forwardAuth (docs/integrations/traefik.md, ${kind})`, () => {
    let stack: ForwardAuthStack;
    before(async () => {
      stack = await startForwardAuthStack((ports) => startTraefikModel(configuration(ports), ports.proxy));
    });
    after(async () => stack?.close());

    test('the configuration copies exactly the user headers Gatehouse answers with', async () => {
      const config = configuration(stack.ports);
      for (const middleware of Object.values(config.middlewares)) {
        assert.deepEqual(
          middleware.authResponseHeaders.map((h) => h.toLowerCase()),
          [...USER_HEADERS],
        );
        assert.equal(middleware.trustForwardHeader, false);
      }
    });

    proxyHttpScenarios(() => stack, {
      guestScript: 'unauthenticated',
      unverifiedBody: /Your email address is not verified\./,
      forgedSpellings: 'refused',
    });
  });
}

describe('/auth/forward with exactly the headers Traefik sends (a real server process)', () => {
  let stack: ForwardAuthStack;
  before(async () => {
    stack = await startForwardAuthStack((ports) =>
      startTraefikModel(configurations['file provider']!(ports), ports.proxy),
    );
  });
  after(async () => stack?.close());

  const traefikHeaders = (method: string) => ({
    'x-forwarded-method': method,
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'app.gatehouse.test',
    'x-forwarded-uri': '/reports/2026?sort=name%20asc',
    'x-forwarded-for': '203.0.113.9',
  });
  const ask = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${stack.ports.gatehouse}/auth/forward`, { headers, redirect: 'manual' });

  test('a guest page visit: 302 to the login with the original URL, for any method', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const answer = await ask({ accept: 'text/html', ...traefikHeaders(method) });
      assert.equal(answer.status, 302, method);
      assert.equal(
        answer.headers.get('location'),
        `${stack.authUrl('/login')}?redirect=${encodeURIComponent('https://app.gatehouse.test/reports/2026?sort=name%20asc')}`,
      );
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    }
  });

  test('a script (curl, fetch): 401, which Traefik hands on as it is', async () => {
    for (const accept of ['*/*', 'application/json']) {
      const answer = await ask({ accept, ...traefikHeaders('GET') });
      assert.equal(answer.status, 401, accept);
      assert.deepEqual(await answer.json(), { message: 'Unauthenticated.' });
      assert.equal(answer.headers.get('location'), null);
    }
  });

  test('signed in: 200 with the four user headers for authResponseHeaders', async () => {
    const client = clientFor(stack);
    await client.get(stack.authUrl('/login'));
    await client.post(stack.authUrl('/login'), {
      email: stack.verified.email,
      password: stack.verified.password,
    });
    const answer = await ask({
      cookie: client.cookieHeaderFor(stack.appUrl('/')),
      accept: 'text/html',
      ...traefikHeaders('GET'),
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-auth-user-id'), String(stack.verified.id));
    assert.equal(answer.headers.get('x-auth-user-email'), stack.verified.email);
    assert.equal(answer.headers.get('x-auth-user-verified'), 'true');
  });
});
