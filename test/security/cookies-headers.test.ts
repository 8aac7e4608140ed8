import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

interface SeenCookie {
  readonly line: string;
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
}

function parseSetCookie(line: string): SeenCookie {
  const [pair, ...rest] = line.split(';').map((s) => s.trim());
  const attributes = new Map<string, string>();
  for (const a of rest) {
    const eq = a.indexOf('=');
    attributes.set((eq < 0 ? a : a.slice(0, eq)).toLowerCase(), eq < 0 ? '' : a.slice(eq + 1));
  }
  return { line, name: pair!.slice(0, pair!.indexOf('=')), attributes };
}

function setCookies(response: LightMyRequestResponse): SeenCookie[] {
  const raw = response.headers['set-cookie'];
  return (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).map(parseSetCookie);
}

/** Drives every flow that sets a cookie and returns each Set-Cookie line seen. */
async function everyCookie(app: TestApp): Promise<SeenCookie[]> {
  const seen: SeenCookie[] = [];
  const keep = (r: LightMyRequestResponse) => {
    seen.push(...setCookies(r));
    return r;
  };
  const user = await app.createUser();
  const web = new Browser(app.app);
  keep(await web.get('/login?lang=de'));
  keep(await web.post('/login', { email: user.email, password: user.password, remember: '1' }));
  keep(await web.get('/dashboard'));
  keep(await web.post('/logout'));
  keep(await app.app.inject({ url: '/sanctum/csrf-cookie', headers: { origin: 'http://localhost:3000' } }));
  const admin = await app.createUser({ panelAccess: true });
  const panel = new Browser(app.app);
  keep(await panel.get('/admin/login'));
  keep(await panel.post('/admin/login', { email: admin.email, password: admin.password, remember: '1' }));
  keep(await panel.get('/admin'));
  keep(await panel.post('/admin/logout'));
  return seen;
}

/**
 * Cookies a script must read (Sanctum's XSRF-TOKEN) or that the contract names (docs/guides/languages.md `locale`, docs/security.md
 * `gatehouse_device`: its value is signed, so a subdomain cannot forge one; no __Host- needed).
 */
const NAMED_BY_CONTRACT = new Set(['XSRF-TOKEN', 'locale', 'gatehouse_device']);

/**
 * Issue 7 §7 / docs/guides/sessions-and-spas.md: every cookie is HttpOnly (except the XSRF-TOKEN an SPA must read),
 * SameSite=Lax and Path=/, never scoped to a Domain; over https every one is Secure and the session
 * and remember-me cookies carry the __Host- prefix. Every HTML page carries the security headers.
 */
for (const scheme of ['http', 'https'] as const) {
  await describeEachDialect(
    `cookie attributes (${scheme} APP_URL)`,
    (ctx) => {
      test('every Set-Cookie of login, remember-me, logout, SPA and panel flows', async () => {
        const seen = await everyCookie(ctx());
        const names = new Set(seen.map((c) => c.name));
        const prefix = scheme === 'https' ? '__Host-' : '';
        for (const name of ['gatehouse_session', 'gatehouse_remember', 'gatehouse_admin_session']) {
          assert.ok(names.has(prefix + name), `${prefix + name} was set (seen: ${[...names].join(', ')})`);
          if (prefix) assert.ok(!names.has(name), `${name} without its __Host- prefix`);
        }
        assert.ok(names.has('XSRF-TOKEN') && names.has('locale') && names.has('gatehouse_device'));
        // The admin guard has no remember-me (docs/security.md): its login ignores the box.
        assert.ok(![...names].some((name) => name.endsWith('gatehouse_admin_remember')));
        for (const cookie of seen) {
          const a = cookie.attributes;
          assert.equal(a.get('path'), '/', cookie.line);
          assert.equal(a.get('samesite')?.toLowerCase(), 'lax', cookie.line);
          assert.ok(!a.has('domain'), `${cookie.line}: a Domain would widen it to subdomains`);
          assert.equal(a.has('httponly'), cookie.name !== 'XSRF-TOKEN', cookie.line);
          assert.equal(a.has('secure'), scheme === 'https', cookie.line);
          if (scheme === 'https' && !NAMED_BY_CONTRACT.has(cookie.name))
            assert.match(cookie.name, /^__Host-/);
        }
      });
    },
    { env: { APP_URL: `${scheme}://gatehouse.test` } },
  );
}

/** Each HTML page and who looks at it: a guest, a (verified / unverified) user, or an admin. */
const HTML_PAGES: readonly [string, 'guest' | 'web' | 'unverified' | 'admin'][] = [
  ['/', 'guest'],
  ['/login', 'guest'],
  ['/register', 'guest'],
  ['/forgot-password', 'guest'],
  ['/reset-password/some-token?email=a%40example.com', 'guest'],
  ['/admin/login', 'guest'],
  ['/no-such-page', 'guest'],
  ['/', 'web'],
  ['/dashboard', 'web'],
  ['/profile', 'web'],
  ['/email/verify', 'unverified'],
  ['/admin', 'admin'],
  ['/admin/users', 'admin'],
  ['/admin/audit', 'admin'],
];

await describeEachDialect('security headers on every HTML page', (ctx) => {
  test('CSP without inline script, no framing, nosniff, a referrer policy, no-store; no X-Powered-By', async () => {
    const app = ctx();
    const signedIn = async (path: '/login' | '/admin/login', user: { email: string; password: string }) => {
      const browser = new Browser(app.app);
      await browser.get(path);
      assert.equal(
        (await browser.post(path, { email: user.email, password: user.password })).statusCode,
        302,
      );
      return browser;
    };
    const browsers = {
      guest: new Browser(app.app),
      web: await signedIn('/login', await app.createUser()),
      unverified: await signedIn('/login', await app.createUser({ verified: false })),
      admin: await signedIn('/admin/login', await app.createUser({ panelAccess: true })),
    };
    const pages: [string, LightMyRequestResponse][] = [];
    for (const [path, who] of HTML_PAGES) pages.push([`${who} ${path}`, await browsers[who].get(path)]);
    // A refused form (422) and an expired CSRF token (419) are pages too.
    pages.push(['POST /login 422', await new Browser(app.app).post('/login', { email: 'x' })]);
    pages.push(['POST /logout 419', await app.app.inject({ method: 'POST', url: '/logout' })]);

    for (const [label, response] of pages) {
      assert.match(
        String(response.headers['content-type']),
        /^text\/html/,
        `${label}: ${response.statusCode}`,
      );
      const csp = String(response.headers['content-security-policy']);
      assert.match(csp, /default-src 'self'/, label);
      assert.match(csp, /frame-ancestors 'none'/, label);
      assert.match(csp, /object-src 'none'/, label);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, label);
      assert.equal(response.headers['x-frame-options'], 'DENY', label);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', label);
      assert.match(
        String(response.headers['referrer-policy']),
        /^(no-referrer|strict-origin-when-cross-origin|same-origin)$/,
        label,
      );
      assert.equal(response.headers['cache-control'], 'no-store', label);
      assert.equal(response.headers['x-powered-by'], undefined, label);
      assert.doesNotMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/i, `${label}: inline script`);
    }
    // The reset page holds a token in its URL: it must not leak through Referer.
    assert.equal(
      pages.find(([p]) => p.includes('/reset-password'))![1].headers['referrer-policy'],
      'no-referrer',
    );
  });
});
