import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeApp } from '../helpers/app.ts';
import { SpaClient } from '../helpers/spa-client.ts';

const SPA = 'http://spa.test:5173';
const EVIL = 'http://evil.test';
const env = { SANCTUM_STATEFUL_DOMAINS: 'spa.test:5173,*.example.com' };

function assertGranted(response: LightMyRequestResponse, origin: string) {
  assert.equal(response.headers['access-control-allow-origin'], origin);
  assert.equal(response.headers['access-control-allow-credentials'], 'true');
  assert.match(String(response.headers['vary']), /\bOrigin\b/);
}

function assertNoGrant(response: LightMyRequestResponse) {
  assert.equal(response.headers['access-control-allow-origin'], undefined);
  assert.equal(response.headers['access-control-allow-credentials'], undefined);
  assert.equal(response.headers['access-control-allow-headers'], undefined);
  assert.equal(response.headers['access-control-allow-methods'], undefined);
}

await describeApp(
  'SPA CORS: credentials for stateful origins only',
  (ctx) => {
    const preflight = (url: string, origin: string, method = 'POST') =>
      ctx().app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': method,
          'access-control-request-headers': 'content-type,x-xsrf-token',
        },
      });

    test('preflight from a listed origin: 204 with origin, credentials, methods and headers', async () => {
      for (const url of [
        '/api/posts',
        '/api/tokens/current',
        '/sanctum/csrf-cookie',
        '/login',
        '/logout',
        '/register',
      ]) {
        const response = await preflight(url, SPA);
        assert.equal(response.statusCode, 204, url);
        assertGranted(response, SPA);
        const methods = String(response.headers['access-control-allow-methods']);
        for (const method of ['GET', 'POST', 'DELETE']) assert.match(methods, new RegExp(`\\b${method}\\b`));
        const headers = String(response.headers['access-control-allow-headers']).toLowerCase();
        for (const header of [
          'x-xsrf-token',
          'x-csrf-token',
          'x-requested-with',
          'content-type',
          'authorization',
          'accept',
        ]) {
          assert.ok(headers.includes(header), `${url}: ${header}`);
        }
        assert.ok(Number(response.headers['access-control-max-age']) > 0);
      }
      assertGranted(
        await preflight('/api/user', 'https://app.example.com', 'GET'),
        'https://app.example.com',
      );
    });

    test('preflight from any other origin gets no grant', async () => {
      for (const origin of [EVIL, 'http://spa.test:5174', 'https://example.com', 'null']) {
        const response = await preflight('/api/posts', origin);
        assertNoGrant(response);
        assert.match(String(response.headers['vary']), /\bOrigin\b/);
      }
      // An origin not in the exact form a browser sends is not echoed back.
      assertNoGrant(await preflight('/api/posts', `${SPA}/`));
      assertNoGrant(await preflight('/api/posts', 'HTTP://SPA.TEST:5173'));
    });

    test('responses (errors included) carry the grant for a listed origin only', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const spa = new SpaClient(app, SPA);
      const cookie = await spa.csrfCookie();
      assertGranted(cookie, SPA);
      const unauthenticated = await spa.json('GET', '/api/user');
      assert.equal(unauthenticated.statusCode, 401);
      assertGranted(unauthenticated, SPA);
      const refused = await spa.json('POST', '/api/posts', { title: 't', body: 'b' }, { xsrf: false });
      assert.equal(refused.statusCode, 419);
      assertGranted(refused, SPA);
      await spa.json('POST', '/login', { email: user.email, password: user.password });
      const me = await spa.json('GET', '/api/user');
      assert.equal(me.statusCode, 200);
      assertGranted(me, SPA);
      assert.match(String(me.headers['access-control-expose-headers']), /Retry-After/);

      const evil = new SpaClient(app, EVIL);
      evil.cookies.set('gatehouse_session', spa.cookies.get('gatehouse_session')!);
      const stolen = await evil.json('GET', '/api/user');
      assert.equal(stolen.statusCode, 401);
      assertNoGrant(stolen);
      assert.match(String(stolen.headers['vary']), /\bOrigin\b/);
      assertNoGrant(await evil.csrfCookie());
    });

    test('pages and other routes get no CORS grant even for a listed origin', async () => {
      const { app } = ctx();
      for (const url of ['/dashboard', '/health', '/']) {
        assertNoGrant(await app.inject({ url, headers: { origin: SPA } }));
      }
      // The SPA routes match by path, whatever the query string.
      assertGranted(await app.inject({ url: '/login?lang=de', headers: { origin: SPA } }), SPA);
      const options = await app.inject({
        method: 'OPTIONS',
        url: '/dashboard',
        headers: { origin: SPA, 'access-control-request-method': 'POST' },
      });
      assertNoGrant(options);
    });
  },
  { env },
);
