import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeEachDialect, twoInstances } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { availableDialects } from '../helpers/databases.ts';
import { guestWithOptions, userWithPasskey } from '../helpers/passkeys.ts';

const LIMIT = 4;

await describeEachDialect(
  'passkeys inside the per-IP auth budget (docs/security.md)',
  (ctx) => {
    test('POST /passkeys/login shares the budget of POST /login; the next gets 429 before any check', async () => {
      const t = ctx();
      const { authenticator } = await userWithPasskey(t);
      const ip = '203.0.113.60';
      const headers = { 'x-forwarded-for': ip };
      const browser = new Browser(t.app, headers);
      await browser.get('/login');
      // Two password logins and two passkey sign-ins from one address: the budget of four is spent.
      for (let i = 0; i < 2; i++)
        assert.equal(
          (await browser.postJson('/login', { email: `x${i}@example.com`, password: 'wrong pass' }))
            .statusCode,
          422,
        );
      for (let i = 0; i < 2; i++)
        assert.equal(
          (await browser.postJson('/passkeys/login', { credential: { id: 'AAAA' } })).statusCode,
          422,
        );

      const options = (await browser.get('/passkeys/login/options', { accept: 'application/json' })).json();
      const credential = authenticator.get(options);
      const refused = await browser.postJson('/passkeys/login', { credential });
      assert.equal(refused.statusCode, 429);
      assert.deepEqual(refused.json(), { message: 'Too Many Attempts.' });
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      const form = await browser.post('/passkeys/login', { credential: JSON.stringify(credential) });
      assert.equal(form.statusCode, 429);
      assert.match(form.body, /Too many login attempts\. Please try again in \d+ seconds\./);

      // Refused before any work: the challenge was not spent. The same browser, from an address with
      // budget left, still signs in with it.
      const elsewhere = await browser.postJson(
        '/passkeys/login',
        { credential },
        { 'x-forwarded-for': '203.0.113.61' },
      );
      assert.equal(elsewhere.statusCode, 204, elsewhere.body);
    });

    test('options are bounded per IP too (IP_AUTH_LIMIT a minute, a count of their own)', async () => {
      const t = ctx();
      const headers = { 'x-forwarded-for': '203.0.113.70', accept: 'application/json' };
      for (let i = 0; i < LIMIT; i++) {
        assert.equal((await t.app.inject({ url: '/passkeys/login/options', headers })).statusCode, 200);
      }
      const refused = await t.app.inject({ url: '/passkeys/login/options', headers });
      assert.equal(refused.statusCode, 429);
      const other = await t.app.inject({
        url: '/passkeys/login/options',
        headers: { ...headers, 'x-forwarded-for': '203.0.113.71' },
      });
      assert.equal(other.statusCode, 200);
    });
  },
  { env: { IP_AUTH_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1' } },
);

for (const { name, skip } of await availableDialects()) {
  describe(`passkey challenges are shared by two instances over one database [${name}]`, { skip }, () => {
    const apps = twoInstances(name);

    test('options from one instance, the sign-in on the other; the challenge then dead on both', async () => {
      const { authenticator } = await userWithPasskey(apps.one);
      const { browser, options } = await guestWithOptions(apps.one);
      const credential = authenticator.get(options);
      const onTwo = new Browser(apps.two.app);
      for (const [key, value] of browser.cookies) onTwo.cookies.set(key, value);
      onTwo.csrf = browser.csrf;
      assert.equal((await onTwo.postJson('/passkeys/login', { credential })).statusCode, 204);
      assert.equal((await browser.postJson('/passkeys/login', { credential })).statusCode, 422);
    });
  });
}
