import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEVICE_COOKIE, deviceCookies } from '../../src/auth/login/device-cookies.ts';
import { storeResetToken } from '../../src/auth/password-reset/password-resets.repository.ts';
import { randomToken, sha256Hex } from '../../src/lib/crypto.ts';
import { describeEachDialect, type TestApp, twoInstances } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { availableDialects, REDIS_TEST_URL } from '../helpers/databases.ts';
import { deleteRedisKeys, redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';

/** ACCOUNT_MAX_FAILURES in these apps: small, so a spray is quick; the rule is the same at 20. */
const MAX = 6;
const WRONG = 'wrong password!';

let addresses = 0;
/** A fresh client address for every attempt of a spray: the per-e-mail+IP throttle never answers. */
const nextIp = () => {
  addresses++;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
};

/** POST /api/tokens from `ip` (the loopback proxy appends it: TRUST_PROXY). */
function apiLogin(app: TestApp, email: string, password: string, ip: string, headers = {}) {
  return app.app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: { 'x-forwarded-for': ip, ...headers },
    payload: { email, password, device_name: 'spray' },
  });
}

/** A browser at `ip`, holding `device` as its gatehouse_device cookie when given. */
function browserAt(app: TestApp, ip: string, device?: string): Browser {
  const browser = new Browser(app.app, { 'x-forwarded-for': ip });
  if (device !== undefined) browser.cookies.set(DEVICE_COOKIE, device);
  return browser;
}

/** The login form of `path` (web or admin), submitted by `browser`. */
async function formLogin(browser: Browser, path: '/login' | '/admin/login', email: string, password: string) {
  await browser.get(path);
  return browser.post(path, { email, password });
}

/** MAX wrong passwords for `email`, each from its own address, through the three doors in turn. */
async function spray(app: TestApp, email: string) {
  for (let i = 0; i < MAX; i++) {
    const ip = nextIp();
    const door = i % 3;
    const response =
      door === 0
        ? await apiLogin(app, email, WRONG, ip)
        : await formLogin(browserAt(app, ip), door === 1 ? '/login' : '/admin/login', email, WRONG);
    assert.equal(response.statusCode, door === 0 ? 401 : 422, `attempt ${i + 1}: ${response.body}`);
  }
}

/** A browser that logs in with the right password and so holds the account's device cookie. */
async function ownersBrowser(app: TestApp, user: { email: string; password: string }) {
  const browser = browserAt(app, nextIp());
  const login = await formLogin(browser, '/login', user.email, user.password);
  assert.equal(login.statusCode, 302, login.body);
  const device = browser.cookies.get(DEVICE_COOKIE);
  assert.ok(device, 'a successful login sets gatehouse_device');
  return device;
}

const lockouts = async (app: TestApp, email: string) =>
  (await app.db.selectFrom('audit_log').select('details').where('event', '=', 'login.lockout').execute())
    .map((row) => JSON.parse(row.details ?? '{}') as { email?: string; scope?: string })
    .filter((details) => details.email === email);

await describeEachDialect(
  'ACCOUNT_MAX_FAILURES: per-account limit with device cookies (docs/security.md)',
  (ctx) => {
    test('device cookie: set on every successful web and admin login, signed, HttpOnly, Lax, one year', async () => {
      const app = ctx();
      const user = await app.createUser({ panelAccess: true });
      for (const path of ['/login', '/admin/login'] as const) {
        const browser = browserAt(app, nextIp());
        await browser.get(path);
        const login = await browser.post(path, { email: user.email, password: user.password });
        assert.equal(login.statusCode, 302, login.body);
        const cookie = login.cookies.find((c) => c.name === DEVICE_COOKIE);
        assert.ok(cookie, `${path} sets ${DEVICE_COOKIE}`);
        assert.equal(cookie.httpOnly, true);
        assert.equal(String(cookie.sameSite).toLowerCase(), 'lax');
        assert.equal(cookie.maxAge, 365 * 24 * 3600);
        assert.equal(cookie.path, '/');
        assert.match(cookie.value, new RegExp(`^${user.id}\\.\\d+\\.[0-9a-f]{64}$`), 'names the account');
      }
      const failed = await formLogin(browserAt(app, nextIp()), '/login', user.email, WRONG);
      assert.equal(
        failed.cookies.find((c) => c.name === DEVICE_COOKIE),
        undefined,
        'no device cookie for a failed login',
      );
    });

    test('per-account limit: a spray across many X-Forwarded-For addresses stops at ACCOUNT_MAX_FAILURES; the owner’s browser still logs in', async () => {
      const app = ctx();
      const user = await app.createUser({ panelAccess: true });
      const device = await ownersBrowser(app, user);
      await spray(app, user.email);

      // The attacker, on yet another address, now gets 429 even with the right password: API …
      const api = await apiLogin(app, user.email, user.password, nextIp());
      assert.equal(api.statusCode, 429, api.body);
      const retryAfter = Number(api.headers['retry-after']);
      assert.ok(retryAfter > 60 && retryAfter <= 900, `the 15-minute window: ${retryAfter}`);
      assert.match(api.json().message, /^Too many login attempts\. Please try again in \d+ seconds\.$/);
      // … and a browser without the device cookie, with the auth.throttle text on the form.
      const stranger = await formLogin(browserAt(app, nextIp()), '/login', user.email, user.password);
      assert.equal(stranger.statusCode, 429);
      assert.ok(Number(stranger.headers['retry-after']) > 60);
      assert.match(stranger.body, /Too many login attempts\. Please try again in \d+ seconds\./);

      // The owner's browser, on an address never seen, logs in to the web and to the panel.
      const owner = browserAt(app, nextIp(), device);
      const web = await formLogin(owner, '/login', user.email, user.password);
      assert.equal(web.statusCode, 302, web.body);
      assert.equal((await owner.get('/dashboard')).statusCode, 200);
      const panel = await formLogin(
        browserAt(app, nextIp(), device),
        '/admin/login',
        user.email,
        user.password,
      );
      assert.equal(panel.statusCode, 302, panel.body);

      // A success of the owner does not hand the sprayer a fresh budget.
      assert.equal((await apiLogin(app, user.email, user.password, nextIp())).statusCode, 429);
      const audited = await lockouts(app, user.email);
      assert.equal(audited.filter((d) => d.scope === 'account').length, 1, 'the lockout is audited once');
    });

    test('per-account limit: API token logins have no cookie and are held to it', async () => {
      const app = ctx();
      const user = await app.createUser();
      const device = await ownersBrowser(app, user);
      await spray(app, user.email);
      const withCookie = await apiLogin(app, user.email, user.password, nextIp(), {
        cookie: `${DEVICE_COOKIE}=${device}`,
      });
      assert.equal(withCookie.statusCode, 429, 'a device cookie sent to /api/tokens changes nothing');
    });

    test('device cookie: a forged one, or one of another account, does not lift the limit', async () => {
      const app = ctx();
      const victim = await app.createUser();
      const other = await app.createUser();
      const othersDevice = await ownersBrowser(app, other);
      await spray(app, victim.email);
      const now = Math.floor(Date.now() / 1000);
      const forgeries = {
        "another account's cookie": othersDevice,
        'a bad signature': `${victim.id}.${now}.${'0'.repeat(64)}`,
        "the other account's signature on the victim's id": othersDevice.replace(/^\d+\./, `${victim.id}.`),
        'signed with another key': deviceCookies(Buffer.alloc(32, 9)).issue(undefined, victim.id, Date.now()),
        'expired (over a year old)': deviceCookies(app.config.appKey).issue(
          undefined,
          victim.id,
          Date.now() - 366 * 24 * 3600 * 1000,
        ),
        garbage: 'x'.repeat(2000),
      };
      for (const [what, cookie] of Object.entries(forgeries)) {
        const response = await formLogin(
          browserAt(app, nextIp(), cookie),
          '/login',
          victim.email,
          victim.password,
        );
        assert.equal(response.statusCode, 429, `${what}: ${response.statusCode}`);
      }
    });

    test('device cookie: one browser is remembered for several accounts', async () => {
      const app = ctx();
      const first = await app.createUser();
      const second = await app.createUser();
      const browser = browserAt(app, nextIp());
      for (const user of [first, second]) {
        assert.equal((await formLogin(browser, '/login', user.email, user.password)).statusCode, 302);
        await browser.get('/dashboard'); // the new session's CSRF token
        assert.equal((await browser.post('/logout')).statusCode, 302);
      }
      const device = browser.cookies.get(DEVICE_COOKIE)!;
      assert.equal(device.split('~').length, 2, device);
      await spray(app, first.email);
      await spray(app, second.email);
      for (const user of [first, second]) {
        const login = await formLogin(browserAt(app, nextIp(), device), '/login', user.email, user.password);
        assert.equal(login.statusCode, 302, `${user.email}: ${login.body}`);
      }
    });

    test('per-account limit: unknown e-mails are counted and refused the same way (no enumeration)', async () => {
      const app = ctx();
      const known = await app.createUser();
      const unknown = `nobody-${Date.now()}@example.com`;
      await spray(app, known.email);
      await spray(app, unknown);
      const answers = await Promise.all(
        [known.email, unknown].map((email) => apiLogin(app, email, WRONG, nextIp())),
      );
      for (const answer of answers) assert.equal(answer.statusCode, 429);
      assert.deepEqual(
        answers.map((a) => a.body.replace(/\d+/g, 'N')),
        answers.map(() => answers[0]!.body.replace(/\d+/g, 'N')),
        'identical answers',
      );
    });

    test('one count: /login, /api/tokens and /admin/login share the per-e-mail+IP count', async () => {
      const app = ctx();
      const user = await app.createUser({ panelAccess: true });
      const ip = nextIp();
      assert.equal((await formLogin(browserAt(app, ip), '/login', user.email, WRONG)).statusCode, 422);
      assert.equal((await apiLogin(app, user.email, WRONG, ip)).statusCode, 401);
      assert.equal((await formLogin(browserAt(app, ip), '/admin/login', user.email, WRONG)).statusCode, 422);
      assert.equal((await apiLogin(app, user.email, WRONG, ip)).statusCode, 401);
      assert.equal((await formLogin(browserAt(app, ip), '/login', user.email, WRONG)).statusCode, 422);
      // The sixth attempt from this address, through any door, is refused even with the right password.
      assert.equal((await apiLogin(app, user.email, user.password, ip)).statusCode, 429);
      assert.equal(
        (await formLogin(browserAt(app, ip), '/admin/login', user.email, user.password)).statusCode,
        429,
      );
      // Five failures are under ACCOUNT_MAX_FAILURES: another address is not held.
      assert.equal((await apiLogin(app, user.email, user.password, nextIp())).statusCode, 200);
    });
  },
  {
    env: {
      ACCOUNT_MAX_FAILURES: String(MAX),
      TRUST_PROXY: '127.0.0.1',
      IP_AUTH_LIMIT: '0',
      API_RATE_LIMIT: '0',
    },
  },
);

const NEW_PASSWORD = 'violet-harbour-lantern-7';

/** Plants a reset token for the user, as a mailed link would carry it (the mail itself: web-password-reset). */
async function plantResetToken(app: TestApp, userId: number): Promise<string> {
  const token = randomToken(32);
  assert.ok(await storeResetToken(app.db, userId, sha256Hex(token), Date.now(), 0));
  return token;
}

const resetRows = (app: TestApp, userId: number) =>
  app.db.selectFrom('password_reset_tokens').select('user_id').where('user_id', '=', userId).execute();

await describeEachDialect(
  'Password reset and login effects on the throttles (docs/security.md)',
  (ctx) => {
    test('reset clears the lock: after a successful reset the new password works at once, from any address', async () => {
      const app = ctx();
      const user = await app.createUser();
      const ip = nextIp();
      await spray(app, user.email);
      // The user's own address is locked both ways: the account count and five of its own failures.
      for (let i = 0; i < 6; i++) await formLogin(browserAt(app, ip), '/login', user.email, WRONG);
      const locked = await formLogin(browserAt(app, ip), '/login', user.email, user.password);
      assert.equal(locked.statusCode, 429);

      const token = await plantResetToken(app, user.id);
      const resetter = browserAt(app, ip);
      await resetter.get(`/reset-password/${token}?email=${encodeURIComponent(user.email)}`);
      const reset = await resetter.post('/reset-password', {
        token,
        email: user.email,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(reset.statusCode, 302, reset.body);

      const login = await formLogin(browserAt(app, ip), '/login', user.email, NEW_PASSWORD);
      assert.equal(login.statusCode, 302, `no "try again in 54 seconds" after a reset: ${login.body}`);
      assert.equal((await apiLogin(app, user.email, NEW_PASSWORD, nextIp())).statusCode, 200);
    });

    test('a successful login deletes the unused reset token (web and API)', async () => {
      const app = ctx();
      const user = await app.createUser();
      const token = await plantResetToken(app, user.id);
      assert.equal((await resetRows(app, user.id)).length, 1);
      const failed = await formLogin(browserAt(app, nextIp()), '/login', user.email, WRONG);
      assert.equal(failed.statusCode, 422);
      assert.equal((await resetRows(app, user.id)).length, 1, 'a failed login leaves it');
      const login = await formLogin(browserAt(app, nextIp()), '/login', user.email, user.password);
      assert.equal(login.statusCode, 302);
      assert.equal((await resetRows(app, user.id)).length, 0);
      const late = browserAt(app, nextIp());
      await late.get('/forgot-password');
      const spent = await late.post('/reset-password', {
        token,
        email: user.email,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(spent.statusCode, 422);
      assert.match(spent.body, /This password reset token is invalid\./);

      await plantResetToken(app, user.id);
      assert.equal((await apiLogin(app, user.email, user.password, nextIp())).statusCode, 200);
      assert.equal((await resetRows(app, user.id)).length, 0, 'a token login deletes it too');
    });
  },
  {
    env: {
      ACCOUNT_MAX_FAILURES: String(MAX),
      TRUST_PROXY: '127.0.0.1',
      IP_AUTH_LIMIT: '0',
      API_RATE_LIMIT: '0',
    },
  },
);

const redisSkipReason = await redisSkip();
for (const { name, skip } of await availableDialects()) {
  describe(`per-account limit shared by two instances over Redis [${name}]`, {
    skip: skip || redisSkipReason,
  }, () => {
    const prefix = uniqueRedisPrefix();
    const env = {
      REDIS_URL: REDIS_TEST_URL,
      REDIS_PREFIX: prefix,
      ACCOUNT_MAX_FAILURES: '4',
      TRUST_PROXY: '127.0.0.1',
      IP_AUTH_LIMIT: '0',
      API_RATE_LIMIT: '0',
    };
    const apps = twoInstances(name, { env, cleanUp: () => deleteRedisKeys(prefix) });

    test('failures on either instance add up to one per-account count; the device cookie works on both', async () => {
      const user = await apps.one.createUser();
      const device = await ownersBrowser(apps.two, user);
      for (const app of [apps.one, apps.two, apps.one, apps.two])
        assert.equal((await apiLogin(app, user.email, WRONG, nextIp())).statusCode, 401);
      for (const app of [apps.one, apps.two]) {
        assert.equal((await apiLogin(app, user.email, user.password, nextIp())).statusCode, 429);
        const owner = await formLogin(browserAt(app, nextIp(), device), '/login', user.email, user.password);
        assert.equal(owner.statusCode, 302, owner.body);
      }
    });
  });
}
