import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { createPasswordHasher } from '../../src/auth/passwords/passwords.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { BODY_FIELDS, parseRoutes } from './requests.ts';

/**
 * The cheap, exhaustive companion of the random fuzzer: every route, signed in as whoever it needs,
 * gets a NUL byte (and other control characters) in every query parameter and every body field any
 * handler reads. PostgreSQL refuses NUL in text outright ("invalid byte sequence"), so a value that
 * reaches a query unchecked is a 500 there and nowhere else. Nothing may answer 5xx.
 */
const POISON = ['a\u0000b', '\u0000', 'a\u0007b\u001b[0m', 'x\u2028y'];
const QUERY_KEYS = [
  'q',
  'user',
  'event',
  'page',
  'sort',
  'name',
  'email',
  'expires',
  'signature',
  'lang',
  'verified',
];

interface Signed {
  bearer: string;
  web: Browser;
  admin: Browser;
  userId: number;
}

async function signIn(app: TestApp): Promise<Signed> {
  const user = await app.createUser();
  const adminUser = await app.createUser({ panelAccess: true });
  const bearer = await app.issueToken(user.email, user.password);
  const web = new Browser(app.app);
  await web.get('/login');
  await web.post('/login', { email: user.email, password: user.password });
  await web.get('/dashboard');
  const admin = new Browser(app.app);
  await admin.get('/admin/login');
  await admin.post('/admin/login', { email: adminUser.email, password: adminUser.password });
  await admin.get('/admin');
  return { bearer, web, admin, userId: user.id };
}

/** Whether the token and both sessions still work (and the web session still has its CSRF token). */
async function stillSignedIn(app: TestApp, signed: Signed): Promise<boolean> {
  const api = await app.app.inject({
    url: '/api/user',
    headers: { authorization: `Bearer ${signed.bearer}` },
  });
  const web = await signed.web.get('/dashboard');
  const admin = await signed.admin.get('/admin');
  return api.statusCode === 200 && web.statusCode === 200 && admin.statusCode === 200;
}

await describeEachDialect(
  'control bytes in every parameter of every route',
  (ctx) => {
    test('no 5xx anywhere', async (t) => {
      const app = ctx();
      const routes = parseRoutes(app.app.printRoutes({ commonPrefix: false }));
      let signed = await signIn(app);
      const failures: string[] = [];
      let sent = 0;
      for (const route of routes) {
        for (const poison of POISON) {
          // A state-changing route may have logged the session out or revoked the token: fresh ones
          // then (only then: each sign-in hashes, and a loaded machine gives the hash threads little).
          if (route.method !== 'GET' && route.method !== 'HEAD' && !(await stillSignedIn(app, signed))) {
            signed = await signIn(app);
          }
          const browser = route.url.startsWith('/admin') ? signed.admin : signed.web;
          const path = route.url.replace(/:[A-Za-z_]+|\*/g, (m) =>
            m === ':id' ? String(signed.userId) : encodeURIComponent(poison),
          );
          const query = QUERY_KEYS.map((k) => `${k}=${encodeURIComponent(poison)}`).join('&');
          const fields = Object.fromEntries(BODY_FIELDS.map((f) => [f, poison]));
          const variants: InjectOptions[] = [{ url: `${path}?${query}` }];
          // One key at a time too: a handler may refuse the first odd key before it reads the next.
          if (poison === POISON[0]) {
            for (const k of QUERY_KEYS) variants.push({ url: `${path}?${k}=${encodeURIComponent(poison)}` });
          }
          if (!['GET', 'HEAD', 'OPTIONS'].includes(route.method)) {
            variants.push({ url: path, payload: { ...fields, _token: browser.csrf } });
            variants.push({
              url: path,
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              payload: new URLSearchParams({ ...fields, _token: browser.csrf ?? '' }).toString(),
            });
          }
          for (const variant of variants) {
            const response = await app.app.inject({
              ...variant,
              method: route.method as InjectOptions['method'],
              headers: {
                authorization: `Bearer ${signed.bearer}`,
                cookie: browser.cookieHeader(),
                'x-csrf-token': browser.csrf ?? '',
                ...variant.headers,
              },
            });
            sent++;
            if (response.statusCode >= 500) {
              failures.push(`${route.method} ${String(variant.url).slice(0, 80)} → ${response.statusCode}`);
            }
          }
        }
      }
      t.diagnostic(`${sent} requests over ${routes.length} routes`);
      assert.deepEqual(failures, []);
    });
  },
  // Many sign-ins: a cheap argon2id (hash strength is not under test here).
  {
    env: { API_RATE_LIMIT: '0' },
    overrides: { hasher: createPasswordHasher(4, { memoryCost: 256, timeCost: 1, parallelism: 1 }) },
  },
);
