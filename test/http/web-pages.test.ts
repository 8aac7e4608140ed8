import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const CSP_REQUIRED = ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"];

async function signIn(t: TestApp, options: { verified?: boolean } = {}) {
  const user = await t.createUser({ name: 'Ada <Lovelace>', verified: options.verified ?? true });
  const browser = new Browser(t.app);
  await browser.get('/login');
  await browser.post('/login', { email: user.email, password: user.password });
  return { user, browser };
}

function assertHtmlSecurityHeaders(response: LightMyRequestResponse, label: string) {
  assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/, label);
  const csp = String(response.headers['content-security-policy']);
  const directives = csp.split(';').map((d) => d.trim());
  for (const directive of CSP_REQUIRED)
    assert.ok(directives.includes(directive), `${label}: CSP has ${directive}`);
  assert.deepEqual(
    directives.filter((d) => !CSP_REQUIRED.includes(d)),
    ["form-action 'self'"],
    `${label}: nothing looser in the CSP`,
  );
  assert.equal(response.headers['x-content-type-options'], 'nosniff', label);
  assert.ok(response.headers['referrer-policy'], label);
  assert.equal(response.headers['x-powered-by'], undefined, label);
  // Scripts only as files from our own origin (the CSP allows nothing inline).
  assert.doesNotMatch(
    response.body,
    /<script(?! src="\/assets\/[a-z-]+\.js" defer><\/script>)|style="/,
    `${label}: no inline script or style`,
  );
}

await describeApp('web pages, guards and headers', (ctx) => {
  test('the welcome page offers log in and register to guests, the dashboard to users', async () => {
    const t = ctx();
    const guest = await t.app.inject({ url: '/' });
    assert.equal(guest.statusCode, 200);
    assert.match(guest.body, /<h1>Welcome to Gatehouse<\/h1>/);
    assert.match(guest.body, /href="\/login"/);
    assert.match(guest.body, /href="\/register"/);
    assert.doesNotMatch(guest.body, /action="\/logout"/);
    for (const locale of ['en', 'de', 'fr', 'es'])
      assert.match(guest.body, new RegExp(`href="/\\?lang=${locale}"`));

    const { browser } = await signIn(t);
    const home = await browser.get('/');
    assert.match(home.body, /href="\/dashboard"/);
    assert.match(home.body, /action="\/logout"/);
    assert.ok(home.body.includes('Ada &lt;Lovelace&gt;') === false, 'the header shows links, not the name');
  });

  test('/dashboard: guests are sent to /login (JSON: 401); users see their page, escaped', async () => {
    const t = ctx();
    const guest = await t.app.inject({ url: '/dashboard' });
    assert.equal(guest.statusCode, 302);
    assert.equal(guest.headers.location, '/login');
    const json = await t.app.inject({ url: '/dashboard', headers: { accept: 'application/json' } });
    assert.equal(json.statusCode, 401);
    assert.deepEqual(json.json(), { message: 'Unauthenticated.' });

    const { browser, user } = await signIn(t);
    const page = await browser.get('/dashboard');
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes('You&#39;re logged in as Ada &lt;Lovelace&gt;.'));
    assert.ok(!page.body.includes('<Lovelace>'), 'user data is escaped');
    assert.ok(page.body.includes(user.email.replace('@', '<wbr>@')));
    assert.match(
      page.body,
      /<form method="post" action="\/logout" class="inline"><input type="hidden" name="_token"/,
    );
  });

  test('/profile needs a verified address: 302 /email/verify, JSON 403; verified users see details and tokens', async () => {
    const t = ctx();
    const unverified = await signIn(t, { verified: false });
    const redirect = await unverified.browser.get('/profile');
    assert.equal(redirect.statusCode, 302);
    assert.equal(redirect.headers.location, '/email/verify');
    const json = await unverified.browser.get('/profile', { accept: 'application/json' });
    assert.equal(json.statusCode, 403);
    assert.deepEqual(json.json(), { message: 'Your email address is not verified.' });
    const dashboard = await unverified.browser.get('/dashboard');
    assert.equal(dashboard.statusCode, 200, 'the dashboard needs no verification');
    assert.match(dashboard.body, /Not verified/);

    const guest = await t.app.inject({ url: '/profile' });
    assert.equal(guest.headers.location, '/login');

    const { browser, user } = await signIn(t);
    const token = await t.issueToken(user.email, user.password, {
      device_name: 'ci-runner',
      abilities: ['posts:read'],
    });
    const profile = await browser.get('/profile?lang=de');
    assert.equal(profile.statusCode, 200);
    assert.ok(profile.body.includes(user.email.replace('@', '<wbr>@')));
    assert.ok(profile.body.includes('Ada &lt;Lovelace&gt;'));
    // The account page's e-mail section: the address, its verified badge and since when.
    assert.match(
      profile.body,
      /Aktuelle Adresse<\/dt><dd>.*?Bestätigt.*?\d{1,2}\. \p{L}+ \d{4} um \d{2}:\d{2} UTC/u,
    );
    assert.match(
      profile.body,
      /<td data-label="Bezeichnung" class="wrap"><div>ci-runner<\/div><\/td><td data-label="Berechtigungen"><div><details class="token-edit"><summary><code>posts:read<\/code>/,
    );
    assert.ok(!profile.body.includes(token.split('|')[1]!), 'never a token secret');
  });

  test('HTML pages carry the CSP, nosniff and Referrer-Policy; authenticated pages are not cached', async () => {
    const t = ctx();
    for (const path of ['/', '/login', '/register', '/no-such-page']) {
      assertHtmlSecurityHeaders(await t.app.inject({ url: path }), path);
    }
    const { browser } = await signIn(t);
    for (const path of ['/dashboard', '/profile', '/']) {
      const response = await browser.get(path);
      assert.equal(response.statusCode, 200, path);
      assertHtmlSecurityHeaders(response, path);
      assert.equal(response.headers['cache-control'], 'no-store', `${path} is never cached`);
    }
    const css = await t.app.inject({ url: '/assets/app.css' });
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.equal(css.headers['x-powered-by'], undefined);
  });

  test('419 without or with a wrong _token: a "Page Expired" page, or JSON "CSRF token mismatch."', async () => {
    const t = ctx();
    const { browser } = await signIn(t);
    for (const token of ['', 'forged-token']) {
      const page = await browser.post('/logout', { _token: token });
      assert.equal(page.statusCode, 419);
      assert.match(page.body, /<h1>Page Expired<\/h1>/);
      assertHtmlSecurityHeaders(page, '419 page');
    }
    const json = await browser.postJson('/logout', {}, { 'x-csrf-token': 'forged' });
    assert.equal(json.statusCode, 419);
    assert.deepEqual(json.json(), { message: 'CSRF token mismatch.' });
    assert.equal((await browser.get('/dashboard')).statusCode, 200, 'still logged in');
    const header = await t.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { accept: 'application/json', cookie: browser.cookieHeader(), 'x-xsrf-token': browser.csrf! },
    });
    assert.equal(header.statusCode, 204, 'X-XSRF-TOKEN is accepted too');
    const german = await browser.post('/login?lang=de', {
      _token: 'nope',
      email: 'a@b.de',
      password: 'secret',
    });
    assert.equal(german.statusCode, 419);
    assert.match(german.body, /Seite abgelaufen/);
  });

  test('cookies: HttpOnly, SameSite=Lax, Path=/, no Secure over http', async () => {
    const t = ctx();
    const user = await t.createUser();
    const browser = new Browser(t.app);
    const form = await browser.get('/login?lang=fr');
    const login = await browser.post('/login', { email: user.email, password: user.password, remember: '1' });
    const raw = [form.headers['set-cookie'], login.headers['set-cookie']].flat().filter(Boolean) as string[];
    for (const name of ['gatehouse_session', 'gatehouse_remember', 'locale']) {
      const cookie = raw.find((c) => c.startsWith(`${name}=`));
      assert.ok(cookie, `${name} is set`);
      assert.match(cookie, /; Path=\/(;|$)/, `${name} Path=/`);
      assert.match(cookie, /; HttpOnly(;|$)/, `${name} HttpOnly`);
      assert.match(cookie, /; SameSite=Lax(;|$)/, `${name} SameSite=Lax`);
      assert.doesNotMatch(cookie, /; Secure|; Domain=/, `${name} has no Secure or Domain over http`);
    }
    const session = raw.find((c) => c.startsWith('gatehouse_session='))!;
    assert.doesNotMatch(session, /Max-Age|Expires/, 'the session cookie ends with the browser');
    assert.match(raw.find((c) => c.startsWith('gatehouse_remember='))!, /Max-Age=\d+/);
  });
});

test('with an https APP_URL, cookies are Secure and __Host- prefixed', async () => {
  const t = await createTestApp('sqlite', { env: { APP_URL: 'https://gatehouse.test' } });
  try {
    const user = await t.createUser();
    const browser = new Browser(t.app);
    const form = await browser.get('/login?lang=es');
    const login = await browser.post('/login', { email: user.email, password: user.password, remember: '1' });
    assert.equal(login.statusCode, 302);
    const raw = [form.headers['set-cookie'], login.headers['set-cookie']].flat().filter(Boolean) as string[];
    for (const name of ['__Host-gatehouse_session', '__Host-gatehouse_remember']) {
      const cookie = raw.find((c) => c.startsWith(`${name}=`));
      assert.ok(cookie, `${name} is set`);
      assert.match(cookie, /; Secure(;|$)/);
      assert.match(cookie, /; Path=\/(;|$)/);
      assert.match(cookie, /; HttpOnly(;|$)/);
      assert.match(cookie, /; SameSite=Lax(;|$)/);
      assert.doesNotMatch(cookie, /; Domain=/, '__Host- cookies never name a domain');
    }
    assert.ok(!raw.some((c) => c.startsWith('gatehouse_session=')), 'no unprefixed session cookie');
    assert.match(raw.find((c) => c.startsWith('locale='))!, /; Secure/);
    assert.equal((await browser.get('/dashboard')).statusCode, 200, 'the prefixed cookie authenticates');
    const unprefixed = await t.app.inject({
      url: '/dashboard',
      cookies: { gatehouse_session: browser.cookies.get('__Host-gatehouse_session')! },
    });
    assert.equal(unprefixed.statusCode, 302, 'the unprefixed name is not read');
  } finally {
    await t.close();
  }
});
