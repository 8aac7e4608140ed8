import assert from 'node:assert/strict';
import { test } from 'node:test';
import fp from 'fastify-plugin';
import { TooManyRequestsError } from '../../src/http/errors.ts';
import { describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

/** Routes that fail on purpose, to see the 429 and 500 pages a person would get. */
const failing = fp(async (app) => {
  app.get('/test/throttled', async () => {
    throw new TooManyRequestsError(42);
  });
  app.get('/test/broken', async () => {
    throw new Error('database exploded at /srv/secret/path');
  });
});

await describeApp(
  'error pages, favicon and language links',
  (ctx) => {
    test('404: plain words, the guest navigation and a way home; JSON keeps "Not Found."', async () => {
      const { app } = ctx();
      const page = await app.inject({ url: '/no/such/page' });
      assert.equal(page.statusCode, 404);
      assert.match(page.body, /<h1>Page not found<\/h1>/);
      assert.match(page.body, /nav class="site-nav" aria-label="Account"/, 'the site navigation is kept');
      assert.match(page.body, /<a class="button secondary" href="\/">Home<\/a>/);
      assert.doesNotMatch(page.body, /Not Found\./);
      const json = await app.inject({ url: '/no/such/page', headers: { accept: 'application/json' } });
      assert.deepEqual(json.json(), { message: 'Not Found.' });
    });

    test('404 for a signed-in user keeps their navigation (dashboard, profile, log out)', async () => {
      const t = ctx();
      const user = await t.createUser();
      const browser = new Browser(t.app);
      await browser.get('/login');
      await browser.post('/login', { email: user.email, password: user.password });
      const page = await browser.get('/missing?lang=de');
      assert.equal(page.statusCode, 404);
      assert.match(page.body, /<h1>Seite nicht gefunden<\/h1>/);
      assert.match(page.body, /action="\/logout"/);
      assert.match(page.body, /href="\/dashboard">Zum Dashboard</);
    });

    test('"Go back" only to a page of this site, never to the referring site', async () => {
      const { app } = ctx();
      const local = await app.inject({
        url: '/gone',
        headers: { host: 'gatehouse.test', referer: 'http://gatehouse.test/login?lang=en' },
      });
      assert.match(local.body, /<a class="button" href="\/login\?lang=en">Go back<\/a>/);
      for (const referer of [
        'https://evil.example/login',
        'http://gatehouse.test//evil.example/x',
        'nonsense',
      ]) {
        const foreign = await app.inject({ url: '/gone', headers: { host: 'gatehouse.test', referer } });
        assert.doesNotMatch(foreign.body, /Go back/, referer);
      }
    });

    test('419: "Page Expired" explained, with log in again for a guest; JSON keeps "CSRF token mismatch."', async () => {
      const { app } = ctx();
      const browser = new Browser(app);
      await browser.get('/login');
      const page = await browser.post('/login', { _token: 'stale', email: 'a@b.de', password: 'secret12' });
      assert.equal(page.statusCode, 419);
      assert.match(page.body, /<h1>Page Expired<\/h1>/);
      assert.match(page.body, /Nothing was changed\. Go back, reload the page and try again\./);
      assert.match(page.body, /href="\/login">Log in again</);
      assert.doesNotMatch(page.body, /CSRF token mismatch/);
    });

    test('429 says how long to wait; 500 says it is our fault and shows nothing internal', async () => {
      const { app } = ctx();
      const throttled = await app.inject({ url: '/test/throttled?lang=fr' });
      assert.equal(throttled.statusCode, 429);
      assert.equal(throttled.headers['retry-after'], '42');
      assert.match(throttled.body, /Veuillez patienter 42 secondes et réessayer\./);
      const broken = await app.inject({ url: '/test/broken' });
      assert.equal(broken.statusCode, 500);
      assert.match(broken.body, /<h1>Something went wrong on our side<\/h1>/);
      assert.doesNotMatch(broken.body, /exploded|\/srv\/|at .*\.ts/);
      const json = await app.inject({ url: '/test/broken', headers: { accept: 'application/json' } });
      assert.deepEqual(json.json(), { message: 'Server Error' });
    });

    test('the favicon is served (no 404 on every page)', async () => {
      const { app } = ctx();
      for (const url of ['/favicon.ico', '/favicon.svg']) {
        const response = await app.inject({ url });
        assert.equal(response.statusCode, 200, url);
        assert.equal(response.headers['content-type'], 'image/svg+xml');
        assert.match(response.body, /^<svg/);
      }
      assert.match((await app.inject({ url: '/login' })).body, /<link rel="icon" href="\/favicon.svg"/);
    });

    test('language links keep the query string, replace lang, and never leave the site', async () => {
      const { app } = ctx();
      const reset = await app.inject({ url: '/reset-password/abc?email=ada%40example.com&lang=fr' });
      assert.ok(
        reset.body.includes('href="/reset-password/abc?email=ada%40example.com&amp;lang=de" hreflang="de"'),
        'the e-mail survives a change of language',
      );
      assert.ok(!reset.body.includes('lang=fr&amp;lang='), 'lang is replaced, not repeated');
      const sneaky = await app.inject({ url: '//evil.example/path' });
      assert.ok(sneaky.body.includes('href="/evil.example/path?lang=de"'));
      assert.ok(!sneaky.body.includes('href="//evil.example'));
    });
  },
  { build: { plugins: [failing] } },
);
