import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { assertJsonError, bearer, insertTokenRow, requestToken } from '../helpers/api.ts';
import { countRows, describeApp } from '../helpers/app.ts';

const START = Date.UTC(2026, 0, 1, 12);
const loginClock = fakeClock(START);

await describeApp(
  'login throttle on POST /api/tokens (memory store, fake clock)',
  (ctx) => {
    test('5 failures per e-mail + IP; the 6th is refused with 429 + Retry-After even with the right password', async () => {
      const { app, db, createUser } = ctx();
      loginClock.set(START);
      const user = await createUser({ email: 'Throttle-Me@example.com' });
      // Failures under differently cased spellings count as one address.
      for (const email of [
        'throttle-me@example.com',
        'THROTTLE-ME@example.com',
        'Throttle-Me@Example.com',
        'throttle-me@EXAMPLE.COM',
        'throttle-me@example.com',
      ]) {
        const response = await requestToken(
          app,
          { email, password: 'wrong password', device_name: 'x' },
          '10.1.0.1',
        );
        assert.equal(response.statusCode, 401, email);
      }
      const tokens = await countRows(db, 'personal_access_tokens');
      loginClock.advance(15_000);
      const refused = await requestToken(
        app,
        { email: user.email, password: user.password, device_name: 'x' },
        '10.1.0.1',
      );
      const body = assertJsonError(refused, 429);
      assert.equal(refused.headers['retry-after'], '45');
      assert.equal(body.message, 'Too many login attempts. Please try again in 45 seconds.');
      assert.equal(await countRows(db, 'personal_access_tokens'), tokens, 'no token for a refused attempt');

      // The lockout is per address and IP: the same address elsewhere, or another address here, pass.
      const elsewhere = await requestToken(
        app,
        { email: user.email, password: user.password, device_name: 'x' },
        '10.1.0.2',
      );
      assert.equal(elsewhere.statusCode, 200);
      const other = await createUser();
      const here = await requestToken(
        app,
        { email: other.email, password: other.password, device_name: 'x' },
        '10.1.0.1',
      );
      assert.equal(here.statusCode, 200);

      loginClock.advance(44_999);
      const still = await requestToken(
        app,
        { email: user.email, password: user.password, device_name: 'x' },
        '10.1.0.1',
      );
      assert.equal(still.statusCode, 429);
      assert.equal(still.headers['retry-after'], '1');
      loginClock.advance(1);
      const after = await requestToken(
        app,
        { email: user.email, password: user.password, device_name: 'x' },
        '10.1.0.1',
      );
      assert.equal(after.statusCode, 200, 'the window ended');
    });

    test('a success clears the count', async () => {
      const { app, createUser } = ctx();
      loginClock.set(START);
      const user = await createUser();
      const attempt = (password: string) =>
        requestToken(app, { email: user.email, password, device_name: 'x' }, '10.1.1.1');
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 4; i++) assert.equal((await attempt('wrong password')).statusCode, 401);
        assert.equal((await attempt(user.password)).statusCode, 200, `round ${round}`);
      }
    });

    test('malformed input is not a failed login', async () => {
      const { app, createUser } = ctx();
      loginClock.set(START);
      const user = await createUser();
      for (let i = 0; i < 10; i++) {
        const response = await requestToken(app, { email: user.email, device_name: 'x' }, '10.1.2.1');
        assert.equal(response.statusCode, 422);
      }
      const ok = await requestToken(
        app,
        { email: user.email, password: user.password, device_name: 'x' },
        '10.1.2.1',
      );
      assert.equal(ok.statusCode, 200);
    });

    test('X-Forwarded-For is ignored without TRUST_PROXY', async () => {
      const { app, createUser } = ctx();
      loginClock.set(START);
      const user = await createUser();
      for (let i = 0; i < 6; i++) {
        const response = await app.inject({
          method: 'POST',
          url: '/api/tokens',
          remoteAddress: '10.1.3.1',
          headers: { 'x-forwarded-for': `198.51.100.${i}` },
          payload: {
            email: user.email,
            password: i === 5 ? user.password : 'wrong password',
            device_name: 'x',
          },
        });
        assert.equal(response.statusCode, i === 5 ? 429 : 401, `attempt ${i + 1}`);
      }
    });
  },
  { overrides: { clock: loginClock }, env: { API_RATE_LIMIT: '0' } },
);

const apiClock = fakeClock(START);

await describeApp(
  'general API limit (API_RATE_LIMIT=3, memory store, fake clock)',
  (ctx) => {
    test('per user: the 4th request in a minute → 429 Too Many Attempts + Retry-After', async () => {
      const { app, db, createUser } = ctx();
      apiClock.set(START);
      const user = await createUser();
      const other = await createUser();
      // Tokens are inserted directly: issuing them through the API would spend the IP allowance.
      const insert = async (userId: number, entropy: string) =>
        bearer((await insertTokenRow(db, { userId, entropy, createdAt: apiClock.now() })).plain);
      const mine = await insert(user.id, 'a');
      const mineToo = await insert(user.id, 'b');
      const theirs = await insert(other.id, 'c');

      const first = await app.inject({ url: '/api/user', headers: mine });
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['x-ratelimit-limit'], '3');
      assert.equal(first.headers['x-ratelimit-remaining'], '2');
      assert.equal((await app.inject({ url: '/api/tokens', headers: mineToo })).statusCode, 200);
      assert.equal((await app.inject({ url: '/api/posts', headers: mine })).statusCode, 200);
      apiClock.advance(10_000);
      const limited = await app.inject({ url: '/api/user', headers: mineToo });
      assertJsonError(limited, 429);
      assert.deepEqual(limited.json(), { message: 'Too Many Attempts.' });
      assert.equal(limited.headers['retry-after'], '50');
      assert.equal(limited.headers['x-ratelimit-remaining'], '0');

      const tokens = await countRows(db, 'personal_access_tokens');
      const revoke = await app.inject({ method: 'DELETE', url: '/api/tokens', headers: mine });
      assert.equal(revoke.statusCode, 429);
      assert.equal(
        await countRows(db, 'personal_access_tokens'),
        tokens,
        'a limited request changes nothing',
      );

      assert.equal((await app.inject({ url: '/api/user', headers: theirs })).statusCode, 200, 'per user');
      apiClock.advance(50_000);
      assert.equal((await app.inject({ url: '/api/user', headers: mine })).statusCode, 200, 'next window');
    });

    test('per IP for unauthenticated requests: token issuing and failed authentication', async () => {
      const { app, createUser } = ctx();
      apiClock.set(START);
      const user = await createUser();
      for (let i = 0; i < 3; i++) {
        const response = await requestToken(
          app,
          { email: `nobody${i}@example.com`, password: 'x', device_name: 'x' },
          '10.2.0.1',
        );
        assert.equal(response.statusCode, 401);
      }
      const limited = await requestToken(
        app,
        { email: user.email, password: user.password, device_name: 'x' },
        '10.2.0.1',
      );
      assertJsonError(limited, 429);
      assert.deepEqual(limited.json(), { message: 'Too Many Attempts.' });
      assert.equal(limited.headers['retry-after'], '60');
      const elsewhere = await requestToken(
        app,
        { email: user.email, password: user.password, device_name: 'x' },
        '10.2.0.2',
      );
      assert.equal(elsewhere.statusCode, 200, 'another IP has its own allowance');

      // Guessing tokens spends the same per-IP allowance, so it is throttled like logins.
      for (let i = 0; i < 3; i++) {
        const guess = await app.inject({
          url: '/api/user',
          remoteAddress: '10.2.0.3',
          headers: { authorization: `Bearer ${i + 1}|guess` },
        });
        assert.equal(guess.statusCode, 401);
      }
      const guess = await app.inject({
        url: '/api/user',
        remoteAddress: '10.2.0.3',
        headers: { authorization: 'Bearer 9|guess' },
      });
      assertJsonError(guess, 429);
      assert.ok(Number(guess.headers['retry-after']) > 0);
    });
  },
  { overrides: { clock: apiClock }, env: { API_RATE_LIMIT: '3' } },
);

await describeApp(
  'X-Forwarded-For with TRUST_PROXY',
  (ctx) => {
    test('the forwarded client address is the throttle key', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const forwarded = (client: string, password: string) =>
        app.inject({
          method: 'POST',
          url: '/api/tokens',
          headers: { 'x-forwarded-for': client },
          payload: { email: user.email, password, device_name: 'x' },
        });
      for (let i = 0; i < 5; i++)
        assert.equal((await forwarded('198.51.100.7', 'wrong password')).statusCode, 401);
      assert.equal((await forwarded('198.51.100.7', user.password)).statusCode, 429);
      assert.equal((await forwarded('198.51.100.8', user.password)).statusCode, 200, 'another client');
    });
  },
  { env: { TRUST_PROXY: 'true', API_RATE_LIMIT: '0' } },
);
