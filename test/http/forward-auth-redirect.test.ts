import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { createTestApp, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser, webLogin } from '../helpers/browser-session.ts';
import { enableTwoFactor, midStep } from '../helpers/two-factor.ts';

const clock = fakeClock(midStep());
const DOMAINS = 'app.example.com,*.tools.example.com,intranet.example.com:8443,bücher.example';
const login = (target: string) => `/login?redirect=${encodeURIComponent(target)}`;

/** Logs in through the form after visiting /login?redirect=…; returns where the login sent the browser. */
async function loginFrom(t: TestApp, target: string, user: { email: string; password: string }) {
  const browser = new Browser(t.app);
  const page = await browser.get(login(target));
  assert.equal(page.statusCode, 200);
  const done = await browser.post('/login', { email: user.email, password: user.password });
  assert.equal(done.statusCode, 302);
  return { browser, page, location: done.headers.location };
}

/**
 * Targets that must never be followed, each a trick that an open-redirect check of some system let
 * through: other hosts, user info, backslashes, scheme tricks, look-alike hosts, CR/LF, odd ports.
 */
const REFUSED = [
  'https://evil.test/',
  'https://app.example.com.evil.test/',
  'https://evilapp.example.com/',
  'https://tools.example.com/',
  'https://app.example.com@evil.test/',
  'https://app.example.com%2F@evil.test/',
  'https://user:secret@app.example.com/',
  'https://evil.test\\@app.example.com/',
  'https://app.example.com\\@evil.test/',
  'https:\\\\app.example.com/',
  '/\\evil.test/',
  '\\\\evil.test',
  '//evil.test/',
  '//app.example.com/',
  'https:app.example.com/',
  'https:/app.example.com/',
  'javascript:alert(1)//app.example.com',
  'JaVaScRiPt:alert(document.domain)',
  'data:text/html,<script>alert(1)</script>',
  'ftp://app.example.com/',
  'https://аpp.example.com/', // Cyrillic а: xn--pp-7kc.example.com, not app.example.com
  'https://app.example.com:8080/',
  'https://intranet.example.com/',
  'https://intranet.example.com:9443/',
  'https://app.example.com:99999/',
  'https://app.example.com/\r\nSet-Cookie: x=1',
  'https://app.example.com/%0d%0a\nx',
  ' https://app.example.com/',
  'https://app.example.com/\t',
  'https://app.example.com/a b',
  'https://app.example.com./',
  `https://app.example.com/${'a'.repeat(2100)}`,
];

/** Targets that are allowed, and the URL the browser is sent to (parsed and re-serialised). */
const ALLOWED: [string, string][] = [
  ['https://app.example.com/reports?year=2026#top', 'https://app.example.com/reports?year=2026#top'],
  ['http://app.example.com/', 'http://app.example.com/'],
  ['HTTPS://APP.Example.COM/Path', 'https://app.example.com/Path'],
  ['https://app.example.com:443/x', 'https://app.example.com/x'],
  ['https://grafana.tools.example.com/d/1', 'https://grafana.tools.example.com/d/1'],
  ['https://a.b.tools.example.com/', 'https://a.b.tools.example.com/'],
  ['https://intranet.example.com:8443/', 'https://intranet.example.com:8443/'],
  ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
  ['https://ＡＰＰ.example.com/', 'https://app.example.com/'],
  ['https://app%2Eexample.com/', 'https://app.example.com/'],
  ['http://gatehouse.test/profile', 'http://gatehouse.test/profile'],
];

await describeApp(
  '/login?redirect= (docs/integrations/forward-auth.md, FORWARD_AUTH_DOMAINS)',
  (ctx) => {
    test('an allowed target: the form says where it continues, the login ends there', async () => {
      const t = ctx();
      const user = await t.createUser();
      const { page, location, browser } = await loginFrom(
        t,
        'https://app.example.com/reports?year=2026',
        user,
      );
      assert.ok(page.body.includes('Sign in to continue to app.example.com.'), 'the lead names the host');
      // Browsers apply form-action to the redirect that ends the form's submission: without these
      // sources Chromium blocks the 302 to the app (test/e2e/forward-auth-*.test.ts run it for real).
      const csp = String(page.headers['content-security-policy']);
      const formAction = csp.split('; ').find((directive) => directive.startsWith('form-action'));
      assert.equal(
        formAction,
        "form-action 'self' http://app.example.com http://*.tools.example.com " +
          'http://intranet.example.com:8443 http://xn--bcher-kva.example',
      );
      assert.equal(location, 'https://app.example.com/reports?year=2026');
      // Spent: the next login goes to the usual place.
      await browser.post('/logout');
      const next = await webLogin(t.app, user);
      assert.equal((await next.get('/login')).headers.location, '/dashboard');
    });

    test('the page is in the request language', async () => {
      const t = ctx();
      const page = await new Browser(t.app).get(`${login('https://app.example.com/')}&lang=de`);
      assert.ok(page.body.includes('Melden Sie sich an, um weiter zu app.example.com zu gelangen.'));
    });

    test('every refused target is ignored: the login goes to /dashboard, the page says nothing', async () => {
      const t = ctx();
      const user = await t.createUser();
      const browser = await webLogin(t.app, user);
      // A signed-in browser is sent on at once: the same check, without a login per case.
      for (const target of REFUSED) {
        const answer = await browser.get(login(target));
        assert.equal(answer.statusCode, 302, target);
        assert.equal(answer.headers.location, '/dashboard', JSON.stringify(target));
      }
      // And through a real login, for a few of them.
      for (const target of ['https://evil.test/', '//evil.test/', 'https://app.example.com@evil.test/']) {
        const { page, location } = await loginFrom(t, target, user);
        assert.equal(location, '/dashboard', target);
        // Only the language links keep the query (encoded, to this site's /login): no link leaves the site.
        assert.ok(!/(href|action)="(https?:)?\/\/evil/.test(page.body), 'no link to the target');
        assert.ok(!page.body.includes('Sign in to continue to'), 'no promise to continue there');
      }
    });

    test('every allowed target is followed, as its canonical URL', async () => {
      const t = ctx();
      const user = await t.createUser();
      const browser = await webLogin(t.app, user);
      for (const [target, expected] of ALLOWED) {
        const answer = await browser.get(login(target));
        assert.equal(answer.statusCode, 302, target);
        assert.equal(answer.headers.location, expected, target);
      }
      const { location } = await loginFrom(t, 'HTTPS://APP.Example.COM/Path', user);
      assert.equal(location, 'https://app.example.com/Path');
    });

    test('remember-me: a browser whose session ended is restored at /login and sent on', async () => {
      const t = ctx();
      const user = await t.createUser();
      const first = await webLogin(t.app, user, { remember: true });
      const remembered = new Browser(t.app);
      remembered.cookies.set('gatehouse_remember', first.cookies.get('gatehouse_remember')!);
      const answer = await remembered.get(login('https://app.example.com/after'));
      assert.equal(answer.statusCode, 302);
      assert.equal(answer.headers.location, 'https://app.example.com/after');
      assert.ok(remembered.cookies.get('gatehouse_session'), 'a new session cookie');
      assert.equal((await remembered.get('/auth/request')).statusCode, 200);
    });

    test('two-factor: the target survives the challenge', async () => {
      const t = ctx();
      const user = await t.createUser();
      const enrolled = await enableTwoFactor(t, user);
      clock.advance(30_000);
      const browser = new Browser(t.app);
      await browser.get(login('https://grafana.tools.example.com/d/1'));
      const password = await browser.post('/login', { email: user.email, password: user.password });
      assert.equal(password.headers.location, '/two-factor-challenge');
      await browser.get('/two-factor-challenge');
      const done = await browser.post('/two-factor-challenge', { code: enrolled.code() });
      assert.equal(done.statusCode, 302);
      assert.equal(done.headers.location, 'https://grafana.tools.example.com/d/1');
    });

    test('a JSON login answers 204 as always; the panel login never leaves the site', async () => {
      const t = ctx();
      const user = await t.createUser({ panelAccess: true });
      const browser = new Browser(t.app);
      await browser.get(login('https://app.example.com/'));
      assert.equal(
        (await browser.postJson('/login', { email: user.email, password: user.password })).statusCode,
        204,
      );
      const panel = new Browser(t.app);
      await panel.get(login('https://app.example.com/'));
      await panel.get('/admin/login?redirect=https%3A%2F%2Fapp.example.com%2F');
      const admin = await panel.post('/admin/login', { email: user.email, password: user.password });
      assert.equal(admin.statusCode, 302);
      assert.equal(admin.headers.location, '/admin');
    });
  },
  { env: { FORWARD_AUTH_DOMAINS: DOMAINS, IP_AUTH_LIMIT: '0' }, overrides: { clock } },
);

test('FORWARD_AUTH_DOMAINS unset: no absolute target is ever followed', async () => {
  const t = await createTestApp('sqlite', { env: { IP_AUTH_LIMIT: '0' } });
  try {
    const user = await t.createUser();
    const { location, page } = await loginFrom(t, 'https://app.example.com/', user);
    assert.equal(location, '/dashboard');
    assert.ok(!page.body.includes('Sign in to continue to'));
  } finally {
    await t.close();
  }
});

await describeApp(
  'SESSION_DOMAIN: one web session for sibling subdomains (docs/integrations/forward-auth.md)',
  (ctx) => {
    test('the session cookie carries Domain and __Secure-; remember-me, XSRF-TOKEN and the panel cookie stay host-only', async () => {
      const t = ctx();
      const user = await t.createUser({ panelAccess: true });
      const browser = new Browser(t.app);
      await browser.get('/login');
      const done = await browser.post('/login', {
        email: user.email,
        password: user.password,
        remember: '1',
      });
      assert.equal(done.statusCode, 302);
      const byName = new Map(done.cookies.map((c) => [c.name, c]));
      for (const name of ['__Secure-gatehouse_session', '__Host-gatehouse_remember', 'XSRF-TOKEN']) {
        const cookie = byName.get(name);
        assert.ok(cookie, `${name} is set`);
        assert.equal(cookie.domain, name === '__Secure-gatehouse_session' ? 'example.com' : undefined, name);
        assert.equal(cookie.secure, true, name);
        assert.equal(cookie.path, '/');
      }
      assert.equal(byName.get('__Secure-gatehouse_session')!.httpOnly, true);
      assert.equal(byName.has('__Host-gatehouse_session'), false);
      // The request a proxy makes for app.example.com carries the same cookie.
      const check = await t.app.inject({
        url: '/auth/request',
        cookies: { '__Secure-gatehouse_session': browser.cookies.get('__Secure-gatehouse_session')! },
      });
      assert.equal(check.statusCode, 200);
      assert.equal(check.headers['x-auth-user-email'], user.email);

      const panel = new Browser(t.app);
      await panel.get('/admin/login');
      const admin = await panel.post('/admin/login', { email: user.email, password: user.password });
      const adminCookie = admin.cookies.find((c) => c.name === '__Host-gatehouse_admin_session');
      assert.ok(adminCookie, 'the panel keeps __Host-');
      assert.equal(adminCookie.domain, undefined);
    });

    test('CSRF still guards state changes, and /api reads the cookie only for stateful front ends', async () => {
      const t = ctx();
      const user = await t.createUser();
      const browser = await webLogin(t.app, user);
      const noToken = await t.app.inject({
        method: 'POST',
        url: '/logout',
        cookies: Object.fromEntries(browser.cookies),
        headers: { origin: 'https://app.example.com' },
      });
      assert.equal(noToken.statusCode, 419, 'a sibling cannot post without the token');
      const cookies = Object.fromEntries(browser.cookies);
      const sibling = await t.app.inject({
        url: '/api/user',
        cookies,
        headers: { origin: 'https://app.example.com', accept: 'application/json' },
      });
      assert.equal(sibling.statusCode, 401, 'a sibling is not a stateful front end');
      const own = await t.app.inject({
        url: '/api/user',
        cookies,
        headers: { origin: 'https://auth.example.com', accept: 'application/json' },
      });
      assert.equal(own.statusCode, 200, 'APP_URL itself still is');
    });
  },
  { env: { APP_URL: 'https://auth.example.com', SESSION_DOMAIN: '.example.com', IP_AUTH_LIMIT: '0' } },
);
