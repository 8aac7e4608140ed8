import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { before, test } from 'node:test';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

/** Sends one raw HTTP/1.1 request (any request-target, as a hostile client could) and reads the answer. */
function rawGet(
  port: number,
  target: string,
  headers: Record<string, string>,
): Promise<{ status: number; location?: string; cookies: [string, string][] }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const lines = Object.entries({ host: 'gatehouse.test', ...headers, connection: 'close' }).map(
        ([k, v]) => `${k}: ${v}`,
      );
      socket.write(`GET ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
    });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
      const location = /\r\nlocation: ([^\r\n]*)/i.exec(answer)?.[1];
      const cookies = [...answer.matchAll(/\r\nset-cookie: ([^=;\r\n]+)=([^;\r\n]*)/gi)].map(
        (m) => [m[1]!, m[2]!] as [string, string],
      );
      resolve(location === undefined ? { status, cookies } : { status, location, cookies });
    });
  });
}

/** Where a login sends the browser, as an absolute URL resolved against the site. */
function landing(location: string | undefined): URL {
  assert.ok(location, 'a redirect');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a header split is what is looked for
  assert.doesNotMatch(location, /[\r\n\u0000]/, 'no raw control character in Location');
  assert.ok(!location.startsWith('//') && !location.startsWith('/\\'), `protocol-relative: ${location}`);
  return new URL(location, 'http://gatehouse.test');
}

/** Request-targets that try to make the remembered "intended" URL point elsewhere. */
const WEB_ATTACKS = [
  'http://evil.example/dashboard',
  'https://evil.example/dashboard',
  '//evil.example/dashboard',
  '///evil.example/dashboard',
  '/\\evil.example/dashboard',
  '/%5Cevil.example',
  '/%2F%2Fevil.example',
  '/dashboard/..//evil.example',
  '/dashboard?next=https://evil.example',
  '/dashboard?x=%0d%0aLocation:%20https://evil.example',
  '/dashboard%0d%0aLocation:%20https://evil.example',
  'http://evil.example/email/verify/1/abc?expires=1&signature=x',
];

/**
 * Issue 7 §7: the intended URL (remembered when a guest opens a protected page, used after login)
 * never leads off the site — whatever request-target a hostile link or client uses — and no request
 * parameter, body field or Host header can choose where a login goes.
 */
await describeEachDialect('open redirects through the intended URL', (ctx) => {
  let port: number;
  before(async () => {
    await ctx().app.listen({ host: '127.0.0.1', port: 0 });
    const address = ctx().app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });

  /** A guest session that opened `target` on a real socket, then logged in on `loginPath`. */
  async function loginAfter(app: TestApp, target: string, loginPath: '/login' | '/admin/login') {
    const user = await app.createUser({ panelAccess: loginPath === '/admin/login' });
    const browser = new Browser(app.app);
    await browser.get(loginPath);
    const opened = await rawGet(port, target, { cookie: browser.cookieHeader() });
    assert.ok(opened.status < 500, `${target} → ${opened.status}`);
    if (opened.location !== undefined) assert.equal(landing(opened.location).origin, 'http://gatehouse.test');
    // The browser keeps what the answer set (the intended URL lives in a signed cookie).
    for (const [name, value] of opened.cookies) browser.cookies.set(name, value);
    const login = await browser.post(loginPath, { email: user.email, password: user.password });
    assert.equal(login.statusCode, 302, target);
    return landing(login.headers.location as string);
  }

  test('a protected page opened as a guest is where the login returns (the mechanism under attack)', async () => {
    const to = await loginAfter(ctx(), '/dashboard?tab=tokens', '/login');
    assert.equal(to.pathname + to.search, '/dashboard?tab=tokens');
  });

  for (const target of WEB_ATTACKS) {
    test(`web login after ${JSON.stringify(target)} stays on the site`, async () => {
      const to = await loginAfter(ctx(), target, '/login');
      assert.equal(to.origin, 'http://gatehouse.test', to.href);
    });
  }

  for (const target of [
    'http://evil.example/admin/users',
    '//evil.example/admin',
    '/admin/users?next=//evil.example',
  ]) {
    test(`panel login after ${JSON.stringify(target)} stays on the site`, async () => {
      const to = await loginAfter(ctx(), target, '/admin/login');
      assert.equal(to.origin, 'http://gatehouse.test', to.href);
    });
  }

  test('redirect/intended/next parameters and a forged Host header choose nothing', async () => {
    const app = ctx();
    const user = await app.createUser();
    const browser = new Browser(app.app, { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    const guarded = await browser.get('/dashboard');
    assert.equal(guarded.headers.location, '/login', 'relative, never built from Host');
    await browser.get('/login?redirect=https://evil.example&intended=//evil.example');
    const login = await browser.post('/login?redirect=https://evil.example&next=//evil.example', {
      email: user.email,
      password: user.password,
      redirect: 'https://evil.example',
      intended: '//evil.example',
      next: '/\\evil.example',
    });
    assert.equal(login.headers.location, '/dashboard');
  });
});
