import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkip, launchChromium } from './chromium.ts';
import { APP_HOST, clientFor, type ForwardAuthStack, type StackUser } from './forward-auth-stack.ts';
import { phpSkip } from './php.ts';
import { startPhpApp } from './php-app.ts';
import { VirtualHostClient } from './virtual-host-client.ts';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** How a proxy hands Gatehouse's refusals on (docs/integrations/forward-auth.md says the same). */
export interface ProxyBehaviour {
  /**
   * What a guest's script (`Accept: application/json`) gets: nginx turns every 401 of auth_request
   * into the login redirect (error_page); Traefik and Caddy pass Gatehouse's own 401 on.
   */
  readonly guestScript: 'login-redirect' | 'unauthenticated';
  /** The body of the 403 an unverified user gets under /admin/ (nginx's page, or Gatehouse's JSON). */
  readonly unverifiedBody: RegExp;
  /**
   * A client's X-Auth-User-* headers in another spelling (X_Auth_User_Id, X.Auth.User.Id): removed by
   * the proxy, so the request goes through without them (nginx drops such names, the Caddyfile
   * removes them); or, where the configuration cannot name them all (Traefik), refused by Gatehouse's
   * check, which the proxy hands to the client (400), so the app is not asked at all.
   */
  readonly forgedSpellings: 'removed' | 'refused';
}

/** Forged values an app must never read: the unverified user's real ones differ from each. */
const FORGED = {
  'x-auth-user-id': '999',
  'x-auth-user-email': 'mallory@example.com',
  'x-auth-user-name': 'Mallory',
  'x-auth-user-verified': 'true',
} as const;

/**
 * Every other spelling a CGI or PHP app reads as the same X-Auth-User-* variable: each of the three
 * word breaks `-`, `_` or `.` (not all `-`: that one the proxies replace), in mixed letter case.
 */
function forgedSpellings(): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(FORGED)) {
    const words = name.split('-');
    for (let n = 1; n < 27; n++) {
      const breaks = [n % 3, Math.floor(n / 3) % 3, Math.floor(n / 9)].map((b) => '-_.'[b]!);
      const spelled = words
        .map((word, i) => (i % 2 === n % 2 ? word.toUpperCase() : word[0]!.toUpperCase() + word.slice(1)))
        .reduce((joined, word, i) => `${joined}${breaks[i - 1]}${word}`);
      headers[spelled] = value;
    }
  }
  return headers;
}

const loginUrl = (stack: ForwardAuthStack, target: string) =>
  `${stack.authUrl('/login')}?redirect=${encodeURIComponent(target)}`;

/** The login form through the proxy, as the guest bounce left it: returns where the login sends us. */
async function logIn(stack: ForwardAuthStack, client: VirtualHostClient, user: StackUser, target: string) {
  const form = await client.get(loginUrl(stack, target), { accept: HTML });
  assert.equal(form.status, 200);
  const done = await client.post(stack.authUrl('/login'), { email: user.email, password: user.password });
  assert.equal(done.status, 302, done.body);
  return done.headers.location;
}

/** The HTTP-level checks every proxy passes, through its real configuration (a Node client). */
export function proxyHttpScenarios(stack: () => ForwardAuthStack, behaviour: ProxyBehaviour): void {
  const target = (s: ForwardAuthStack) => s.appUrl('/reports?year=2026&q=a%20b');

  test('a guest is sent to the login, with the way back; the app never sees the request', async () => {
    const s = stack();
    const seen = s.app.seen.length;
    const client = clientFor(s);
    const page = await client.get(target(s), { accept: HTML, 'x-auth-user-email': 'forged@example.com' });
    assert.equal(page.status, 302);
    assert.equal(page.headers.location, loginUrl(s, target(s)));
    const script = await client.get(s.appUrl('/api/data'), { accept: 'application/json' });
    if (behaviour.guestScript === 'login-redirect') {
      assert.equal(script.status, 302);
      assert.equal(script.headers.location, loginUrl(s, s.appUrl('/api/data')));
    } else {
      assert.equal(script.status, 401);
      assert.deepEqual(JSON.parse(script.body), { message: 'Unauthenticated.' });
    }
    assert.equal(s.app.seen.length, seen, 'nothing reached the app');
  });

  test('after the login the browser goes back, and the app sees who it is (forged headers replaced)', async () => {
    const s = stack();
    const client = clientFor(s);
    const form = await client.get(loginUrl(s, target(s)), { accept: HTML });
    assert.ok(form.body.includes(`Sign in to continue to ${APP_HOST}`), 'the login names the app');
    assert.equal(await logIn(s, client, s.verified, target(s)), target(s));
    const page = await client.get(target(s), {
      accept: HTML,
      'x-auth-user-id': '999',
      'x-auth-user-email': 'forged@example.com',
      'x-auth-user-name': 'Mallory',
      'x-auth-user-verified': 'true',
    });
    assert.equal(page.status, 200);
    assert.ok(page.body.includes(`<output id="user-email">${s.verified.email}</output>`));
    const seen = s.app.seen.at(-1)!;
    assert.equal(seen.url, '/reports?year=2026&q=a%20b');
    assert.deepEqual(seen.user, {
      'x-auth-user-id': String(s.verified.id),
      'x-auth-user-email': s.verified.email,
      'x-auth-user-name': s.verified.name,
      'x-auth-user-verified': 'true',
    });
    // A form post to the app is checked like a page view, and its body reaches the app untouched.
    const posted = await client.request('POST', s.appUrl('/notes'), {
      headers: { 'content-type': 'text/plain', 'x-auth-user-id': '999' },
      body: 'remember the milk',
    });
    assert.equal(posted.status, 200);
    const note = s.app.seen.at(-1)!;
    assert.deepEqual([note.method, note.url, note.body], ['POST', '/notes', 'remember the milk']);
    assert.equal(note.user['x-auth-user-id'], String(s.verified.id));
  });

  test('identity headers a client sends in any other spelling (X_Auth_User_Id, X.Auth.User.Id) never reach the app', async () => {
    const s = stack();
    const client = clientFor(s);
    const forged = forgedSpellings();
    assert.equal(Object.keys(forged).length, 4 * 26);
    const seen = s.app.seen.length;
    const guest = await client.get(s.appUrl('/'), { accept: HTML, ...forged });
    assert.equal(guest.status, behaviour.forgedSpellings === 'refused' ? 400 : 302);
    assert.equal(s.app.seen.length, seen, 'a guest never reaches the app');
    await logIn(s, client, s.unverified, s.appUrl('/'));
    const page = await client.get(s.appUrl('/whoami'), { accept: HTML, ...forged });
    if (behaviour.forgedSpellings === 'refused') {
      assert.equal(page.status, 400);
      assert.equal(s.app.seen.length, seen, 'the app was not asked');
      return;
    }
    assert.equal(page.status, 200);
    const request = s.app.seen.at(-1)!;
    assert.equal(request.url, '/whoami');
    // What a PHP app's $_SERVER holds: only the proxy's own four headers, with the real user.
    assert.deepEqual(request.identity.map(([name, value]) => [name.toLowerCase(), value]).sort(), [
      ['x-auth-user-email', s.unverified.email],
      ['x-auth-user-id', String(s.unverified.id)],
      ['x-auth-user-name', s.unverified.name],
      ['x-auth-user-verified', 'false'],
    ]);
  });

  test('a PHP app behind the configuration (issue 27) reads the signed-in user, never a forged one', {
    skip: phpSkip(),
  }, async () => {
    const s = stack();
    const php = await startPhpApp();
    const proxy = await s.proxyTo(php.port);
    try {
      const client = clientFor(s);
      await logIn(s, client, s.unverified, s.appUrl('/'));
      const url = `http://${APP_HOST}:${proxy.port}/whoami.php`;
      const answer = await new VirtualHostClient(proxy.port).get(url, {
        accept: HTML,
        cookie: client.cookieHeaderFor(s.appUrl('/')),
        ...FORGED,
        ...forgedSpellings(),
      });
      if (behaviour.forgedSpellings === 'refused') {
        assert.equal(answer.status, 400);
        assert.ok(!answer.body.includes('"php"'), 'PHP was not asked');
        return;
      }
      assert.equal(answer.status, 200, answer.body);
      assert.deepEqual(JSON.parse(answer.body).user, {
        ID: String(s.unverified.id),
        EMAIL: s.unverified.email,
        NAME: s.unverified.name,
        VERIFIED: 'false',
      });
    } finally {
      await proxy.stop();
      await php.close();
    }
  });

  test('?verified=1 (/admin/): an unverified user gets 403 there and may use the rest', async () => {
    const s = stack();
    const client = clientFor(s);
    const admin = s.appUrl('/admin/');
    assert.equal(await logIn(s, client, s.unverified, admin), admin);
    const seen = s.app.seen.length;
    const refused = await client.get(admin, { accept: HTML });
    assert.equal(refused.status, 403);
    assert.match(refused.body, behaviour.unverifiedBody);
    assert.equal(s.app.seen.length, seen, 'the app was not asked');
    const home = await client.get(s.appUrl('/'), { accept: HTML });
    assert.equal(home.status, 200);
    assert.equal(s.app.seen.at(-1)!.user['x-auth-user-verified'], 'false');
    assert.equal((await clientFor(s).get(admin, { accept: HTML })).status, 302, 'a guest: the login');
  });

  test('logging out at Gatehouse closes the app at once, also for a copy of the old cookie', async () => {
    const s = stack();
    const client = clientFor(s);
    await logIn(s, client, s.verified, s.appUrl('/'));
    assert.equal((await client.get(s.appUrl('/'), { accept: HTML })).status, 200);
    const stolen = client.cookieHeaderFor(s.appUrl('/'));
    await client.get(s.authUrl('/dashboard'), { accept: HTML });
    assert.equal((await client.post(s.authUrl('/logout'), {})).status, 302);
    const after = await client.get(s.appUrl('/'), { accept: HTML });
    assert.equal(after.status, 302);
    assert.equal(after.headers.location, loginUrl(s, s.appUrl('/')));
    const replayed = await clientFor(s).get(s.appUrl('/'), { accept: HTML, cookie: stolen });
    assert.equal(replayed.status, 302, 'the logged-out cookie no longer opens the app');
  });
}

/**
 * The same story in a real Chromium (docs/integrations/forward-auth.md, issue 19): *.gatehouse.test resolves to 127.0.0.1
 * through `--host-resolver-rules`, so cookies, redirects and hosts are what a browser does with them.
 */
export function proxyBrowserScenarios(stack: () => ForwardAuthStack, behaviour: ProxyBehaviour): void {
  describe('in Chromium', { skip: chromiumSkip() }, () => {
    let browser: Browser;
    before(async () => {
      browser = await launchChromium(['--host-resolver-rules=MAP *.gatehouse.test 127.0.0.1']);
    });
    after(async () => browser?.close());

    const fresh = async () => (await browser.newContext({ locale: 'en-US' })).newPage();
    /** Waits for `url`; a timeout says where the browser is instead, and what it shows. */
    const arrive = async (page: Page, url: string) => {
      try {
        await page.waitForURL(url, { timeout: 15_000 });
      } catch {
        const text = ((await page.textContent('body').catch(() => '')) ?? '').replace(/\s+/g, ' ');
        assert.fail(`expected ${url}, the browser is at ${page.url()}: ${text.slice(0, 300)}`);
      }
    };
    const submitLogin = async (page: Page, user: StackUser) => {
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Log in' }).click();
    };

    test('guest → login page → log in → back on the app with the e-mail; log out → login again', async () => {
      const s = stack();
      const page = await fresh();
      const target = s.appUrl('/reports?year=2026');
      await page.goto(target);
      assert.equal(page.url(), loginUrl(s, target), 'the login wall');
      await submitLogin(page, s.verified);
      await arrive(page, target);
      assert.equal(await page.locator('#user-email').textContent(), s.verified.email);

      await page.goto(s.authUrl('/dashboard'));
      await page.getByRole('button', { name: 'Log out' }).click();
      await arrive(page, s.authUrl('/'));
      await page.goto(target);
      assert.equal(page.url(), loginUrl(s, target), 'logged out: the login wall again');
      await page.context().close();
    });

    test('an unverified user under /admin/ (?verified=1) gets 403', async () => {
      const s = stack();
      const page = await fresh();
      const admin = s.appUrl('/admin/');
      await page.goto(admin);
      assert.equal(page.url(), loginUrl(s, admin));
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url() === admin),
        submitLogin(page, s.unverified),
      ]);
      assert.equal(answer.status(), 403);
      assert.match((await page.textContent('body')) ?? '', behaviour.unverifiedBody);
      await page.context().close();
    });
  });
}
