import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPasswordHasher } from '../../src/auth/passwords/passwords.ts';
import { bearer } from '../helpers/api.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser, webLogin } from '../helpers/browser-session.ts';

/**
 * argon2id slow enough (a few hundred ms a check) that a queue of one stays full while a test looks
 * at it; the bound under test is the hasher's, whatever its cost. Within the bounds a check may cost
 * (password-strength.ts: passes ≤ 16), or the check is refused without hashing and nothing queues.
 */
const SLOW = { memoryCost: 65536, timeCost: 8, parallelism: 1 };
const BUSY_EN = 'Too many sign-ins are being checked right now. Please try again in a moment.';

let n = 0;
/** A wrong-password token request for an address nobody has, from its own client address. */
function wrongLogin(app: TestApp, extra: { email?: string; ip?: string } = {}) {
  n++;
  return app.app.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: { 'x-forwarded-for': extra.ip ?? `10.9.${n >> 8}.${n & 255}` },
    payload: { email: extra.email ?? `flood-${n}@example.com`, password: 'wrong password', device_name: 'f' },
  });
}

/** Starts two checks (one on the thread, one waiting: HASH_QUEUE_MAX=1 is reached) and waits for that. */
async function fillQueue(app: TestApp) {
  const running = [wrongLogin(app), wrongLogin(app)];
  const deadline = Date.now() + 10_000;
  while (app.services.hasher.queued() < 1) {
    // A failure to name, not a file that times out after ten minutes (as it did when SLOW was out of bounds).
    if (Date.now() > deadline) throw new Error('the hash queue never filled: are the checks hashing at all?');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return running;
}

await describeEachDialect(
  'HASH_QUEUE_MAX: bounded hashing (docs/security.md)',
  (ctx) => {
    test('bounded hashing: a full queue answers 503 + Retry-After at once (JSON and form, in the page language)', async () => {
      const app = ctx();
      const running = await fillQueue(app);
      const api = await wrongLogin(app);
      assert.equal(api.statusCode, 503, api.body);
      assert.deepEqual(api.json(), { message: BUSY_EN });
      assert.equal(api.headers['retry-after'], '1');

      const browser = new Browser(app.app);
      await browser.get('/login?lang=de');
      const json = await browser.postJson('/login', { email: 'a@example.com', password: 'wrong password' });
      assert.equal(json.statusCode, 503, json.body);
      assert.ok(Number(json.headers['retry-after']) >= 1);
      const form = await browser.post('/login?lang=de', {
        email: 'a@example.com',
        password: 'wrong password',
      });
      assert.equal(form.statusCode, 503);
      assert.match(form.headers['content-type'] as string, /text\/html/);
      // The form again, saying it once, with the address kept (docs/reference/errors.md).
      assert.equal(form.body.split('Gerade werden zu viele Anmeldungen geprüft').length, 2, form.body);
      assert.ok(form.body.includes('action="/login"') && form.body.includes('value="a@example.com"'));
      assert.ok(!form.body.includes('wrong password'), 'no password comes back');
      assert.ok(Number(form.headers['retry-after']) >= 1);
      assert.ok(app.services.hasher.queued() >= 1, 'the queue was full throughout');
      for (const response of await Promise.all(running)) assert.equal(response.statusCode, 401);
    });

    test("bounded hashing: the signed-in user's own password check (confirm-password) gets 503 too", async () => {
      const app = ctx();
      const user = await app.createUser();
      const browser = await webLogin(app.app, user);
      const running = await fillQueue(app);
      const refused = await browser.postJson('/user/confirm-password', { password: user.password });
      assert.equal(refused.statusCode, 503, refused.body);
      // In the words of the form (docs/reference/errors.md): a confirmation is no sign-in.
      assert.deepEqual(refused.json(), {
        message: 'Too many passwords are being checked right now. Please try again in a moment.',
      });
      await Promise.all(running);
      const confirmed = await browser.postJson('/user/confirm-password', { password: user.password });
      assert.equal(confirmed.statusCode, 204, 'the refused check took no attempt; once drained it passes');
    });

    test('bounded hashing: a check refused for load is no failed attempt of the user', async () => {
      const app = ctx();
      const user = await app.createUser();
      const ip = '192.0.2.77';
      const running = await fillQueue(app);
      for (let i = 0; i < 7; i++) {
        const refused = await wrongLogin(app, { email: user.email, ip });
        assert.equal(refused.statusCode, 503);
      }
      await Promise.all(running);
      const later = await app.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { 'x-forwarded-for': ip },
        payload: { email: user.email, password: user.password, device_name: 'f' },
      });
      assert.equal(later.statusCode, 200, 'seven 503s did not lock the e-mail+IP count');
    });

    test('bounded hashing: attempts that passed the first look but met a full queue after their counts were taken give them back', async () => {
      const app = ctx();
      const user = await app.createUser();
      const ip = '192.0.2.78';
      // Five at once from one address: the queue is empty when each starts, so all five take their
      // counts; by the time they reach the hasher one runs, one waits, and the others meet a full queue.
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => wrongLogin(app, { email: user.email, ip })),
      );
      const statuses = answers.map((a) => a.statusCode);
      assert.ok(
        statuses.every((status) => status === 401 || status === 503),
        `checked (401) or refused for load (503): ${statuses}`,
      );
      assert.ok(
        statuses.filter((status) => status === 503).length >= 2,
        `some met a full queue: ${statuses}`,
      );
      // LOGIN_MAX_ATTEMPTS is 5: with the 503s counted, this sixth try would be 429.
      const later = await app.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { 'x-forwarded-for': ip },
        payload: { email: user.email, password: user.password, device_name: 'f' },
      });
      assert.equal(later.statusCode, 200, `only the checked attempts counted: ${later.body}`);
    });

    test('bounded hashing: a flood of 30 concurrent wrong logins gets 401 or 503, and bearer GET /api/user is answered throughout', async () => {
      const app = ctx();
      const user = await app.createUser();
      const token = await app.issueToken(user.email, user.password);
      const flood = Array.from({ length: 30 }, () => wrongLogin(app));
      const reads = [];
      for (let i = 0; i < 10; i++) {
        reads.push(app.app.inject({ method: 'GET', url: '/api/user', headers: bearer(token) }));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const answers = await Promise.all(flood);
      const statuses = answers.map((a) => a.statusCode);
      assert.ok(
        statuses.every((s) => s === 401 || s === 503),
        `only 401 or 503: ${statuses}`,
      );
      assert.ok(statuses.filter((s) => s === 503).length >= 20, `most refused at once: ${statuses}`);
      for (const refused of answers.filter((a) => a.statusCode === 503))
        assert.equal(refused.headers['retry-after'], '1');
      for (const read of await Promise.all(reads)) assert.equal(read.statusCode, 200, read.body);
    });
  },
  {
    env: { HASH_QUEUE_MAX: '1', TRUST_PROXY: '127.0.0.1', IP_AUTH_LIMIT: '0', API_RATE_LIMIT: '0' },
    overrides: { hasher: createPasswordHasher(1, SLOW, 1) },
  },
);
