import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import fp from 'fastify-plugin';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { countRows, createTestApp, type TestApp } from '../helpers/app.ts';
import { chromiumSkip, launchChromium } from '../helpers/chromium.ts';
import { serveStatic } from '../helpers/static-server.ts';

/**
 * A real Chromium runs the tiny SPA of fixtures/spa.html against a listening Gatehouse, the way a
 * Laravel Sanctum SPA works: csrf-cookie, JSON login, /api/user, POST /api/posts, logout.
 *
 * Origins: the SPA is served from http://localhost:<spa port> and Gatehouse from
 * http://localhost:<api port> — different origins on the same site (ports do not make a site), which
 * is Sanctum's model. SameSite=Lax cookies travel on same-site fetches, and cookies are shared across
 * ports, so the page can read XSRF-TOKEN. (From 127.0.0.1 to localhost would be cross-site: the Lax
 * session cookie would never be sent.) The same page from a second, unlisted localhost port must be
 * refused although the browser sends it the very same cookies.
 */

interface Call {
  method: string;
  path: string;
  status: number;
  body?: unknown;
  error?: string;
}

interface Seen {
  method: string;
  url: string;
  origin: string | undefined;
  status: number;
}

const PAGE = readFileSync(new URL('./fixtures/spa.html', import.meta.url));

const serveSpa = () => serveStatic({ '/': { type: 'text/html; charset=utf-8', body: PAGE } });

/** Records what reached Gatehouse, so a refusal can be told apart from a request never sent. */
const recorder = (seen: Seen[]) =>
  fp(async (app) => {
    app.addHook('onResponse', async (request, reply) => {
      seen.push({
        method: request.method,
        url: request.url,
        origin: request.headers.origin,
        status: reply.statusCode,
      });
    });
  });

const calls = (page: Page) => page.evaluate(() => (globalThis as unknown as { calls: Call[] }).calls);

/** Runs a UI action and waits until the page has logged `count` more API calls; returns those. */
async function act(page: Page, count: number, action: () => Promise<void>): Promise<Call[]> {
  const before = (await calls(page)).length;
  await action();
  await page.waitForFunction(
    (n) => (globalThis as unknown as { calls: unknown[] }).calls.length >= n,
    before + count,
  );
  return (await calls(page)).slice(before);
}

const summary = (list: Call[]) => list.map((c) => `${c.method} ${c.path} ${c.status}`);

const skip = chromiumSkip();

describe('SPA in real Chromium: stateful domain, cookie session, XSRF, CORS', { skip }, () => {
  let listed: Awaited<ReturnType<typeof serveSpa>>;
  let unlisted: Awaited<ReturnType<typeof serveSpa>>;
  let gatehouse: TestApp;
  let api: string;
  let browser: Browser;
  let context: BrowserContext;
  let spa: Page;
  let user: Awaited<ReturnType<TestApp['createUser']>>;
  const seen: Seen[] = [];

  before(async () => {
    listed = await serveSpa();
    unlisted = await serveSpa();
    gatehouse = await createTestApp('sqlite', {
      env: { SANCTUM_STATEFUL_DOMAINS: new URL(listed.origin).host },
      build: { plugins: [recorder(seen)] },
    });
    user = await gatehouse.createUser({ name: 'Ada Lovelace' });
    const address = await gatehouse.app.listen({ host: '127.0.0.1', port: 0 });
    api = `http://localhost:${new URL(address).port}`;
    browser = await launchChromium();
    context = await browser.newContext();
    spa = await context.newPage();
  });

  after(async () => {
    await browser?.close();
    await gatehouse?.close();
    await listed?.close();
    await unlisted?.close();
  });

  test('listed origin: csrf-cookie → JSON login → GET /api/user → POST /api/posts', async () => {
    await spa.goto(`${listed.origin}/?api=${encodeURIComponent(api)}`);
    await spa.fill('#login [name=email]', user.email);
    await spa.fill('#login [name=password]', user.password);
    const login = await act(spa, 3, () => spa.click('#login button'));
    assert.deepEqual(summary(login), [
      'GET /sanctum/csrf-cookie 204',
      'POST /login 204',
      'GET /api/user 200',
    ]);
    assert.equal((login[2]!.body as { email: string }).email, user.email);
    assert.equal(await spa.textContent('#who'), 'Signed in as Ada Lovelace');

    const cookies = await spa.evaluate(
      () => (globalThis as unknown as { document: { cookie: string } }).document.cookie,
    );
    assert.match(cookies, /XSRF-TOKEN=/, 'the SPA can read the XSRF token');
    assert.doesNotMatch(cookies, /gatehouse_session/, 'but never the HttpOnly session cookie');

    const posts = await countRows(gatehouse.db, 'posts');
    await spa.fill('#post [name=title]', 'Hello from Chromium');
    await spa.fill('#post [name=body]', 'Sent with the session cookie and X-XSRF-TOKEN.');
    const created = await act(spa, 1, () => spa.click('#post button'));
    assert.deepEqual(summary(created), ['POST /api/posts 201']);
    assert.equal(await countRows(gatehouse.db, 'posts'), posts + 1);
    const row = await gatehouse.db
      .selectFrom('posts')
      .selectAll()
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.equal(row.user_id, user.id);
    assert.equal(row.title, 'Hello from Chromium');

    // The same browser, same cookies, but without the header: the server refuses.
    const forged = await spa.evaluate(async (base) => {
      const response = await fetch(`${base}/api/posts`, {
        method: 'POST',
        credentials: 'include',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ title: 'no header', body: 'x' }),
      });
      return { status: response.status, body: await response.json() };
    }, api);
    assert.deepEqual(forged, { status: 419, body: { message: 'CSRF token mismatch.' } });
    assert.equal(await countRows(gatehouse.db, 'posts'), posts + 1);
  });

  test('the same page from an unlisted origin is refused, though the browser holds a live session', async () => {
    const posts = await countRows(gatehouse.db, 'posts');
    const seenBefore = seen.length;
    const other = await context.newPage();
    await other.goto(`${unlisted.origin}/?api=${encodeURIComponent(api)}`);

    const who = await act(other, 1, () => other.click('#me'));
    assert.equal(who[0]!.status, 0, 'no CORS grant: the response is hidden from the page');
    assert.match(who[0]!.error ?? '', /TypeError/);
    await other.fill('#post [name=title]', 'Should never be stored');
    await other.fill('#post [name=body]', 'x');
    const post = await act(other, 1, () => other.click('#post button'));
    assert.equal(post[0]!.status, 0);
    await other.fill('#login [name=email]', user.email);
    await other.fill('#login [name=password]', user.password);
    const login = await act(other, 2, () => other.click('#login button'));
    assert.deepEqual(
      login.map((c) => c.status),
      [0, 0],
    );
    await other.close();

    // What the server saw: the simple GET arrived with the session cookie and was not authenticated;
    // the POSTs never got past their preflight.
    const fromUnlisted = seen.slice(seenBefore).filter((s) => s.origin === unlisted.origin);
    const user401 = fromUnlisted.find((s) => s.method === 'GET' && s.url === '/api/user');
    assert.equal(user401?.status, 401);
    assert.ok(fromUnlisted.some((s) => s.method === 'OPTIONS' && s.url === '/api/posts'));
    assert.equal(
      fromUnlisted.find((s) => s.method === 'POST'),
      undefined,
      'no state-changing request was sent',
    );
    assert.equal(await countRows(gatehouse.db, 'posts'), posts);

    // Meanwhile the listed SPA is still signed in.
    assert.deepEqual(summary(await act(spa, 1, () => spa.click('#me'))), ['GET /api/user 200']);
  });

  test('logout ends the session: /api/user answers 401 afterwards', async () => {
    const logout = await act(spa, 2, () => spa.click('#logout'));
    assert.deepEqual(summary(logout), ['POST /logout 204', 'GET /api/user 401']);
    assert.equal(await spa.textContent('#who'), 'Signed out (401)');
  });
});
