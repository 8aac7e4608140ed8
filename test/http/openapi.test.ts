import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { LightMyRequestResponse } from 'fastify';
import { parseRoutes } from '../fuzz/requests.ts';
import { describeApp } from '../helpers/app.ts';
import { OpenApiChecker } from '../helpers/openapi.ts';

/**
 * Routes that answer pages, assets or redirects only: every other route answers JSON to a JSON client
 * and must be in /openapi.json (docs/reference/http-api.md), with the methods it has.
 */
const NOT_JSON = new Set([
  'GET /',
  'GET /login',
  'GET /register',
  'GET /forgot-password',
  'GET /reset-password/:token',
  'GET /dashboard',
  'GET /profile',
  'GET /profile/:area',
  'GET /oauth/interaction/:uid',
  'GET /two-factor-challenge',
  'GET /user/confirm-password',
  'GET /user/two-factor',
  'GET /admin',
  'GET /admin/login',
  'GET /admin/users',
  'GET /admin/users/new',
  'GET /admin/users/:id',
  'GET /admin/orgs',
  'GET /admin/orgs/:id',
  'GET /admin/audit',
  'GET /admin/webhooks',
  'GET /admin/clients',
  'GET /admin/clients/new',
  'GET /admin/two-factor-challenge',
  'GET /admin/two-factor-required',
  'GET /assets/app.css',
  'GET /assets/app.js',
  'GET /assets/passkeys.js',
  'GET /assets/login-providers.js',
  'GET /favicon.svg',
  'GET /favicon.ico',
  'GET /email/cancel-change/:id/:hash',
]);

await describeApp('OpenAPI document', (t) => {
  test('GET /openapi.json is public and valid against the OpenAPI 3.1 schema', async () => {
    const response = await t().app.inject({ url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.servers[0].url, 'http://gatehouse.test');
    const result = await new Validator().validate(document);
    assert.deepEqual(result, { valid: true });
  });

  test('every JSON route of the app is described, and nothing that does not exist', async () => {
    const app = t().app;
    const document = (await app.inject({ url: '/openapi.json' })).json();
    const described = new Set<string>();
    for (const [path, methods] of Object.entries<Record<string, unknown>>(document.paths)) {
      for (const method of Object.keys(methods))
        described.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    const routes = parseRoutes(app.printRoutes({ commonPrefix: false }))
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
      .map((r) => `${r.method} ${r.url}`);
    // A form route is registered twice (its method and POST for `_method`): either one described is enough.
    const forms = new Set(
      routes.filter((r) => !r.startsWith('POST ')).map((r) => r.replace(/^\w+ /, 'POST ')),
    );
    const missing = routes.filter((r) => !described.has(r) && !NOT_JSON.has(r) && !forms.has(r));
    assert.deepEqual(missing, [], 'JSON routes missing from /openapi.json');
    const unknown = [...described].filter((d) => !routes.includes(d));
    assert.deepEqual(unknown, [], 'described routes the app does not have');
  });

  test('the response check fails on drift: an unlisted status, a body of another shape, a missing body', async () => {
    const document = (await t().app.inject({ url: '/openapi.json' })).json();
    const checker = new OpenApiChecker(document);
    const answer = (statusCode: number, body: unknown) =>
      ({
        statusCode,
        headers: { 'content-type': body === undefined ? undefined : 'application/json; charset=utf-8' },
        body: body === undefined ? '' : JSON.stringify(body),
        json: () => body,
      }) as unknown as LightMyRequestResponse;
    const user = {
      id: 1,
      name: 'A',
      email: 'a@example.com',
      email_verified_at: null,
      created_at: 'x',
      updated_at: 'y',
      organizations: [],
    };
    assert.doesNotThrow(() =>
      checker.check(
        { url: '/api/user' },
        answer(200, {
          ...user,
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
        }),
      ),
    );
    assert.throws(
      () => checker.check({ url: '/api/user' }, answer(200, { ...user, password: 'h' })),
      /does not match/,
    );
    assert.throws(() => checker.check({ url: '/api/user' }, answer(201, user)), /not in \/openapi.json/);
    assert.throws(() => checker.check({ url: '/api/user' }, answer(204, undefined)), /not in \/openapi.json/);
    assert.throws(
      () => checker.check({ method: 'DELETE', url: '/api/tokens/current' }, answer(204, { message: 'x' })),
      /a JSON body came where/,
    );
    // Errors not listed fall under `default`, which still has a shape.
    assert.doesNotThrow(() => checker.check({ url: '/api/user' }, answer(418, { message: 'teapot' })));
    assert.throws(
      () => checker.check({ url: '/api/user' }, answer(418, { error: 'teapot' })),
      /does not match/,
    );
  });
});
