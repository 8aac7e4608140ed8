import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { TEST_APP_KEY } from '../helpers/app.ts';
import {
  createTestDatabase,
  MYSQL_ADMIN_URL,
  mysqlAvailable,
  POSTGRES_ADMIN_URL,
  postgresAvailable,
  REDIS_TEST_URL,
  requireServices,
  type TestDatabase,
} from '../helpers/databases.ts';
import { BIN } from '../helpers/paths.ts';
import { HttpClient, type ServerProcess, startServer } from '../helpers/process.ts';
import { deleteRedisKeys, redisKeys, redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';

/**
 * Issue 7 §2 / docs/guides/operations.md, docs/guides/mysql.md: two real server processes (as `npm start` runs them) on different
 * ports over ONE server database (PostgreSQL, then MariaDB/MySQL) and ONE Redis behave as one service
 * behind a load balancer without sticky sessions. Each step acts on one instance and checks the
 * effect on the other at once.
 */
const SERVERS = {
  postgres: { label: 'PostgreSQL', url: POSTGRES_ADMIN_URL, up: postgresAvailable },
  mysql: { label: 'MariaDB/MySQL', url: MYSQL_ADMIN_URL, up: mysqlAvailable },
} as const;
type Server = keyof typeof SERVERS;

async function skipReason(dialect: Server): Promise<string | false> {
  const { label, url, up } = SERVERS[dialect];
  const reachable = await up();
  if (!reachable && requireServices)
    throw new Error(`${label} is required (REQUIRE_SERVICES=1) but not reachable at ${url}`);
  if (!reachable) return `${label} not reachable at ${url}`;
  return redisSkip();
}

const PASSWORD = 'correct horse battery staple';

for (const dialect of ['postgres', 'mysql'] as const) {
  const title = `two server processes over one ${SERVERS[dialect].label} database and one Redis`;
  describe(title, { skip: await skipReason(dialect) }, () => twoInstances(dialect));
}

function twoInstances(dialect: Server) {
  const ADMIN_EMAIL = `admin-${dialect}-${Date.now()}@example.com`;
  let database: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  let env: Record<string, string>;
  const prefix = uniqueRedisPrefix();
  let counter = 0;
  /** Every password, token and cookie value used, to check the two processes' logs at the end. */
  const secrets = new Set<string>([PASSWORD]);
  const keepCookies = (client: HttpClient) => {
    for (const value of client.cookies.values()) if (value.length >= 16) secrets.add(value);
  };

  before(async () => {
    database = await createTestDatabase(dialect);
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_TEST_URL,
      REDIS_PREFIX: prefix,
      // One public address for both, as behind a load balancer; cookies and CSRF tokens are signed
      // with the shared APP_KEY, so either instance accepts what the other issued.
      APP_URL: 'http://gatehouse.test',
      APP_KEY: TEST_APP_KEY,
      API_RATE_LIMIT: '1000',
      // AUTH_CACHE=notify in the test's environment runs every step below with the auth cache on.
      ...(process.env['AUTH_CACHE'] ? { AUTH_CACHE: process.env['AUTH_CACHE'] } : {}),
    };
    // Both start (and run migrations) at the same moment over the empty database, and so does the
    // CLI creating the panel's admin (`gatehouse make:admin`, which migrates too).
    [a, b] = await Promise.all([
      startServer({ env }),
      startServer({ env }),
      promisify(execFile)(
        process.execPath,
        [BIN, 'make:admin', '--name', 'Scale Admin', '--email', ADMIN_EMAIL, '--password', PASSWORD],
        { env: { PATH: process.env['PATH'] ?? '', ...env }, timeout: 60_000 },
      ).then(({ stdout }) => assert.match(stdout, /^Success! /)),
    ]);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await deleteRedisKeys(prefix);
    await database?.drop();
  });

  /** Registers through the web form on `server`; returns the logged-in browser. */
  async function register(server: ServerProcess) {
    counter++;
    const email = `scale${counter}-${Date.now()}@example.com`;
    const browser = new HttpClient(server.url);
    await browser.get('/register');
    const response = await browser.post('/register', {
      name: `Scale ${counter}`,
      email,
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    assert.equal(response.status, 302, response.body);
    assert.equal(response.headers.get('location'), '/dashboard');
    keepCookies(browser);
    return { browser, email };
  }

  async function issueToken(server: ServerProcess, email: string, password = PASSWORD) {
    const response = await new HttpClient(server.url).request('POST', '/api/tokens', {
      json: { email, password, device_name: 'scale' },
    });
    assert.equal(response.status, 200, response.body);
    const token = response.json<{ token: string }>().token;
    secrets.add(token);
    return token;
  }

  const bearerStatus = async (server: ServerProcess, token: string) =>
    (await new HttpClient(server.url).get('/api/user', { authorization: `Bearer ${token}` })).status;

  /** GET /dashboard on `server` with exactly these cookies (another browser holding a copied cookie). */
  async function dashboardWith(server: ServerProcess, cookies: Map<string, string>) {
    const browser = new HttpClient(server.url);
    for (const [k, v] of cookies) browser.cookies.set(k, v);
    return browser.get('/dashboard');
  }

  test('both instances migrated the one database and answer /ready', async () => {
    for (const server of [a, b]) {
      const ready = await new HttpClient(server.url).get('/ready');
      assert.equal(ready.status, 200, ready.body);
    }
  });

  test('a web login on A works on B; logout on B ends it on A at once', async () => {
    const { email } = await register(b);
    // The login form comes from A, the login goes to A, the session is used on B.
    const browser = new HttpClient(a.url);
    await browser.get('/login');
    const login = await browser.post('/login', { email, password: PASSWORD });
    assert.equal(login.status, 302, login.body);
    keepCookies(browser);
    browser.baseUrl = b.url;
    const dashboard = await browser.get('/dashboard');
    assert.equal(dashboard.status, 200);
    assert.match(dashboard.body, /Scale \d+/);
    const copied = new Map(browser.cookies);
    assert.equal((await dashboardWith(a, copied)).status, 200);

    // The CSRF token of the page B rendered is accepted by B for the session A created.
    const logout = await browser.post('/logout');
    assert.equal(logout.status, 302);
    assert.equal(logout.headers.get('location'), '/');
    const afterLogout = await dashboardWith(a, copied);
    assert.equal(afterLogout.status, 302, 'the old session cookie no longer works on A');
    assert.equal(afterLogout.headers.get('location'), '/login');
  });

  test('a remember-me cookie issued on A brings the browser back on B', async () => {
    const { email } = await register(a);
    const browser = new HttpClient(a.url);
    await browser.get('/login');
    assert.equal((await browser.post('/login', { email, password: PASSWORD, remember: '1' })).status, 302);
    keepCookies(browser);
    const remember = browser.cookies.get('gatehouse_remember');
    assert.ok(remember);
    const returning = new HttpClient(b.url);
    returning.cookies.set('gatehouse_remember', remember);
    assert.equal((await returning.get('/dashboard')).status, 200, 'restored on B without a session cookie');
    keepCookies(returning);
  });

  test('a token made on B works on A; revoked on A, refused on B at once', async () => {
    const { email } = await register(b);
    const token = await issueToken(b, email);
    assert.equal(await bearerStatus(a, token), 200);
    const revoke = await new HttpClient(a.url).request('DELETE', '/api/tokens/current', {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(revoke.status, 204);
    assert.equal(await bearerStatus(b, token), 401);
    assert.equal(await bearerStatus(a, token), 401);
  });

  test('disabled in the panel on A: session, token and login refused on B at once', async () => {
    const { browser, email } = await register(b);
    const token = await issueToken(a, email);
    assert.equal((await dashboardWith(b, browser.cookies)).status, 200);
    assert.equal(await bearerStatus(b, token), 200);

    const admin = new HttpClient(a.url);
    await admin.get('/admin/login');
    const login = await admin.post('/admin/login', { email: ADMIN_EMAIL, password: PASSWORD });
    assert.equal(login.status, 302, login.body);
    keepCookies(admin);
    const users = await admin.get(`/admin/users?q=${encodeURIComponent(email)}`);
    assert.equal(users.status, 200);
    const id = /\/admin\/users\/(\d+)/.exec(users.body)?.[1];
    assert.ok(id, 'the user is listed in the panel');
    await admin.get(`/admin/users/${id}`);
    const disable = await admin.post(`/admin/users/${id}/disable`);
    assert.equal(disable.status, 302, disable.body);

    const dashboard = await dashboardWith(b, browser.cookies);
    assert.equal(dashboard.status, 302, 'the web session is refused on B');
    assert.equal(await bearerStatus(b, token), 401, 'the token is refused on B');
    const relogin = await new HttpClient(b.url).request('POST', '/api/tokens', {
      json: { email, password: PASSWORD, device_name: 'scale' },
    });
    assert.equal(relogin.status, 401, 'a disabled account cannot log in on B');
  });

  test('login rate-limit counts are shared: 3 failures on A + 2 on B → the 6th is 429 on either', async () => {
    const { email } = await register(a);
    const attempt = async (server: ServerProcess, password: string) =>
      new HttpClient(server.url).request('POST', '/api/tokens', {
        json: { email, password, device_name: 'scale' },
      });
    for (const server of [a, a, a, b, b]) assert.equal((await attempt(server, 'wrong password')).status, 401);
    const locked = await attempt(b, PASSWORD);
    assert.equal(locked.status, 429, 'refused even with the right password');
    assert.ok(Number(locked.headers.get('retry-after')) > 0);
    assert.equal((await attempt(a, PASSWORD)).status, 429);

    // One count for the three doors (docs/security.md): the web form of that e-mail and IP is locked too.
    const web = new HttpClient(a.url);
    await web.get('/login');
    assert.equal((await web.post('/login', { email, password: PASSWORD })).status, 429);

    // Another account's web failures are shared between the instances the same way.
    const other = (await register(b)).email;
    for (const server of [a, b, a, b, a]) {
      web.baseUrl = server.url;
      const failed = await web.post('/login', { email: other, password: 'wrong password' });
      assert.equal(failed.status, 422);
    }
    web.baseUrl = b.url;
    assert.equal((await web.post('/login', { email: other, password: PASSWORD })).status, 429);

    // The counters live in Redis under this run's prefix (hashed keys: no e-mail address in Redis).
    const keys = await redisKeys(prefix);
    assert.ok(keys.length > 0, 'rate-limit keys in Redis');
    assert.ok(keys.every((k) => !k.includes('@')));
  });

  test('neither process logged a password, token or cookie value', () => {
    const lines = [...a.stdout, ...a.stderr, ...b.stdout, ...b.stderr];
    assert.ok(lines.length > 20, 'both processes logged their requests');
    const leaks = [...secrets].filter((secret) => lines.some((line) => line.includes(secret)));
    assert.deepEqual(leaks, []);
  });
}
