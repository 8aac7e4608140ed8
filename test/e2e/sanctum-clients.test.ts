import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fp from 'fastify-plugin';
import type { Browser, Page } from 'playwright-core';
import { countRows, createTestApp, type TestApp } from '../helpers/app.ts';
import { bundleForBrowser } from '../helpers/bundle.ts';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { serveStatic } from '../helpers/static-server.ts';

/**
 * Clients written for Laravel Sanctum by other people, unchanged, in a real Chromium: axios (set up as
 * docs/guides/sessions-and-spas.md says) and react-sanctum (React 19), each bundled with esbuild and served from another
 * port of the same host, which SANCTUM_STATEFUL_DOMAINS lists (Sanctum's SPA layout).
 */

interface Seen {
  method: string;
  url: string;
  status: number;
  body: unknown;
}

/** One bundled script under a bare page, from http://localhost:<port>. */
const serveApp = (script: string) =>
  serveStatic({
    '/': {
      type: 'text/html; charset=utf-8',
      body:
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>client</title></head>' +
        '<body><div id="root"></div><script src="/app.js"></script></body></html>',
    },
    '/app.js': { type: 'text/javascript', body: script },
  });

const recorder = (seen: Seen[]) =>
  fp(async (app) => {
    app.addHook('onResponse', async (request, reply) => {
      seen.push({ method: request.method, url: request.url, status: reply.statusCode, body: request.body });
    });
  });

describe('Sanctum clients in Chromium: axios and react-sanctum', { skip: chromiumSkip() }, () => {
  let gatehouse: TestApp;
  let api: string;
  let browser: Browser;
  let axiosApp: Awaited<ReturnType<typeof serveApp>>;
  let reactApp: Awaited<ReturnType<typeof serveApp>>;
  let user: Awaited<ReturnType<TestApp['createUser']>>;
  const seen: Seen[] = [];

  before(async () => {
    const [axiosScript, reactScript] = await Promise.all([
      bundleForBrowser(new URL('./fixtures/axios-client.js', import.meta.url).pathname),
      bundleForBrowser(new URL('./fixtures/react-sanctum-app.js', import.meta.url).pathname),
    ]);
    axiosApp = await serveApp(axiosScript);
    reactApp = await serveApp(reactScript);
    gatehouse = await createTestApp('sqlite', {
      env: {
        SANCTUM_STATEFUL_DOMAINS: [axiosApp.origin, reactApp.origin].map((o) => new URL(o).host).join(','),
      },
      build: { plugins: [recorder(seen)] },
    });
    user = await gatehouse.createUser({ name: 'Ada Lovelace' });
    const address = await gatehouse.app.listen({ host: '127.0.0.1', port: 0 });
    api = `http://localhost:${new URL(address).port}`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await gatehouse?.close();
    await axiosApp?.close();
    await reactApp?.close();
  });

  test('axios: csrf-cookie → login → /api/user → POST /api/posts → logout → 401', async () => {
    const context = await browser.newContext();
    try {
      const page: Page = await context.newPage();
      await page.goto(`${axiosApp.origin}/?api=${encodeURIComponent(api)}`);
      const client = <T>(call: string, ...args: unknown[]) =>
        page.evaluate(
          ([name, rest]) =>
            (globalThis as unknown as { gatehouse: Record<string, (...a: unknown[]) => Promise<unknown>> })
              .gatehouse[name as string]!(...(rest as unknown[])),
          [call, args] as const,
        ) as Promise<T>;
      type Answer = { status: number; data: unknown };
      assert.equal((await client<Answer>('csrf')).status, 204);
      assert.equal((await client<Answer>('login', user.email, user.password, false)).status, 204);
      const me = await client<Answer>('user');
      assert.equal(me.status, 200);
      assert.equal((me.data as { email: string }).email, user.email);
      const posts = await countRows(gatehouse.db, 'posts');
      assert.equal((await client<Answer>('post', 'From axios', 'with the session cookie')).status, 201);
      assert.equal(await countRows(gatehouse.db, 'posts'), posts + 1);
      assert.equal((await client<Answer>('logout')).status, 204);
      assert.equal((await client<Answer>('user')).status, 401);
    } finally {
      await context.close();
    }
  });

  test('react-sanctum: signs in without "remember me" (it posts "remember": null), shows the user, signs out', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${reactApp.origin}/?api=${encodeURIComponent(api)}`);
      await page.waitForSelector('#state:text("Signed out")');
      const before = seen.length;
      await page.fill('#sign-in [name=email]', user.email);
      await page.fill('#sign-in [name=password]', user.password);
      await page.click('#sign-in button[type=submit]');
      await page
        .waitForSelector('#state:text("Signed in as Ada Lovelace")', { timeout: 10_000 })
        .catch(async () => {
          assert.fail(`react-sanctum did not sign in: ${await page.textContent('#error')}`);
        });
      const login = seen.slice(before).find((s) => s.method === 'POST' && s.url === '/login');
      assert.ok(login, 'the login reached Gatehouse');
      assert.deepEqual(
        { status: login.status, remember: (login.body as { remember: unknown }).remember },
        { status: 204, remember: null },
      );
      const cookies = await context.cookies(api);
      assert.equal(
        cookies.find((c) => c.name === 'gatehouse_remember'),
        undefined,
        'null remembers nothing',
      );

      await page.click('#sign-out');
      await page.waitForSelector('#state:text("Signed out")');
      const logout = seen.slice(before).find((s) => s.method === 'POST' && s.url === '/logout');
      assert.equal(logout?.status, 204);
    } finally {
      await context.close();
    }
  });
});
