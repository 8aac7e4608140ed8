import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeEachDialect, type TestApp, twoInstances } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { availableDialects, REDIS_TEST_URL } from '../helpers/databases.ts';
import { deleteRedisKeys, redisSkip, uniqueRedisPrefix } from '../helpers/redis.ts';

const N = 8;
const WRONG = 'not the password!';
let addresses = 0;
const nextIp = () => {
  addresses++;
  return `10.21.${(addresses >> 8) & 255}.${addresses & 255}`;
};

/** POST /api/tokens from `ip` (behind the trusted loopback proxy). */
function apiLogin(app: TestApp, email: string, password: string, ip: string) {
  return app.app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: { 'x-forwarded-for': ip },
    payload: { email, password, device_name: 'parallel' },
  });
}

const statuses = (answers: { statusCode: number }[]) =>
  answers.map((a) => a.statusCode).sort((a, b) => a - b);

/** The env of these apps: the per-e-mail+IP limit at its default (5), a per-account one (6) below the number of logins. */
const ENV = { TRUST_PROXY: '127.0.0.1', ACCOUNT_MAX_FAILURES: '6', IP_AUTH_LIMIT: '0', API_RATE_LIMIT: '0' };

/**
 * docs/security.md "Only rejected credentials count": the attempt reserved before a password is hashed
 * must not refuse the account's own correct logins running beside it. The black-box run: eight
 * simultaneous POST /api/tokens with the right password for one e-mail, three got 429 "Too many login
 * attempts" (the reservations of the five still hashing filled the per-e-mail+IP limit). The limit still
 * holds for wrong passwords, concurrent or not.
 */
function suite(apps: () => [TestApp, TestApp]) {
  test(`${N} simultaneous right passwords from one address: ${N} × 200`, async () => {
    const [one, two] = apps();
    const user = await one.createUser();
    const ip = nextIp();
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => apiLogin(i % 2 ? two : one, user.email, user.password, ip)),
    );
    assert.deepEqual(statuses(answers), Array(N).fill(200), answers.map((a) => a.body).join('\n'));
  });

  test(`${N} simultaneous right passwords from ${N} addresses (per-account limit 6): ${N} × 200`, async () => {
    const [one, two] = apps();
    const user = await one.createUser();
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => apiLogin(i % 2 ? two : one, user.email, user.password, nextIp())),
    );
    assert.deepEqual(statuses(answers), Array(N).fill(200), answers.map((a) => a.body).join('\n'));
  });

  test('right passwords beside a few wrong ones at once: every right one gets in', async () => {
    const [one, two] = apps();
    const user = await one.createUser();
    const ip = nextIp();
    const answers = await Promise.all(
      Array.from({ length: N + 3 }, (_, i) =>
        apiLogin(i % 2 ? two : one, user.email, i < 3 ? WRONG : user.password, ip),
      ),
    );
    assert.deepEqual(statuses(answers), [...Array(N).fill(200), 401, 401, 401]);
  });

  test(`the limit still holds: ${N} simultaneous wrong passwords → 5 × 401, 3 × 429; the right one next is refused`, async () => {
    const [one, two] = apps();
    const user = await one.createUser();
    const ip = nextIp();
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => apiLogin(i % 2 ? two : one, user.email, `${WRONG}${i}`, ip)),
    );
    assert.deepEqual(statuses(answers), [401, 401, 401, 401, 401, 429, 429, 429]);
    const next = await apiLogin(one, user.email, user.password, ip);
    assert.equal(next.statusCode, 429, next.body);
  });

  test('web logins too: simultaneous right passwords in several browsers of one address all sign in', async () => {
    const [one] = apps();
    const user = await one.createUser();
    const ip = nextIp();
    const browsers = await Promise.all(
      Array.from({ length: N }, async () => {
        const browser = new Browser(one.app, { 'x-forwarded-for': ip });
        await browser.get('/login');
        return browser;
      }),
    );
    const answers = await Promise.all(
      browsers.map((b) => b.postJson('/login', { email: user.email, password: user.password })),
    );
    assert.deepEqual(statuses(answers), Array(N).fill(204));
  });
}

await describeEachDialect(
  'concurrent right passwords never refuse each other (one instance, counters in memory)',
  (ctx) => suite(() => [ctx(), ctx()]),
  { env: ENV },
);

const redisReason = await redisSkip();
for (const { name, skip } of await availableDialects()) {
  describe(`concurrent right passwords never refuse each other (two instances over Redis) [${name}]`, {
    skip: skip || redisReason,
  }, () => {
    const prefix = uniqueRedisPrefix();
    const instances = twoInstances(name, {
      env: { ...ENV, REDIS_URL: REDIS_TEST_URL, REDIS_PREFIX: prefix },
      cleanUp: () => deleteRedisKeys(prefix),
    });
    suite(() => [instances.one, instances.two]);
  });
}
