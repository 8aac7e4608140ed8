import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { bearer, requestToken } from '../helpers/api.ts';
import { describeApp } from '../helpers/app.ts';

const PASSWORD = 'Pw-LOGSECRET-correct-7731';
const WRONG = 'Pw-LOGSECRET-wrong-5512';
const COOKIE = 'CookieLOGSECRET0123456789abcdef';
const OTHER_COOKIE = 'RememberLOGSECRETfedcba9876543210';

await describeApp(
  'logs never hold passwords, tokens or cookies',
  (ctx) => {
    test('after a tour of the API at LOG_LEVEL=trace', async () => {
      const { app, logs, createUser } = ctx();
      const user = await createUser({ password: PASSWORD });
      const cookie = `gatehouse_session=${COOKIE}; gatehouse_remember=${OTHER_COOKIE}`;

      const issued = await requestToken(app, { email: user.email, password: PASSWORD, device_name: 'phone' });
      assert.equal(issued.statusCode, 200);
      const token: string = issued.json().token;
      const secret = token.slice(token.indexOf('|') + 1);

      const requests = [
        requestToken(app, { email: user.email, password: WRONG, device_name: 'phone' }),
        requestToken(app, { email: 'nobody@example.com', password: WRONG, device_name: 'phone' }),
        requestToken(app, { email: 'not-an-email', password: WRONG, device_name: 'phone' }),
        app.inject({
          method: 'POST',
          url: '/api/tokens',
          headers: { 'content-type': 'application/json' },
          payload: `{"email": "${user.email}", "password": "${PASSWORD}", `,
        }),
        app.inject({
          method: 'POST',
          url: '/api/tokens',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
          payload: `email=${encodeURIComponent(user.email)}&password=${PASSWORD}&device_name=x`,
        }),
        app.inject({ url: '/api/user', headers: { ...bearer(token), cookie } }),
        app.inject({ url: `/api/user?token=${encodeURIComponent(token)}&api_token=${secret}` }),
        app.inject({ url: '/api/tokens', headers: { authorization: `Bearer ${token.slice(0, -1)}x` } }),
        app.inject({
          url: '/api/tokens',
          headers: { authorization: `Basic ${Buffer.from(`${user.email}:${PASSWORD}`).toString('base64')}` },
        }),
        app.inject({ url: '/api/nope', headers: { ...bearer(token), cookie } }),
        app.inject({
          url: `/reset-password/${secret}?email=${encodeURIComponent(user.email)}&token=${secret}`,
        }),
      ];
      for (const request of requests) await request;
      const revoke = await app.inject({
        method: 'DELETE',
        url: '/api/tokens/current',
        headers: bearer(token),
      });
      assert.equal(revoke.statusCode, 204);

      assert.ok(logs.length >= requests.length, `expected request lines, got ${logs.length}`);
      const forbidden = {
        password: PASSWORD,
        'wrong password': WRONG,
        token,
        'token secret': secret,
        'token hash': sha256Hex(secret),
        cookie: COOKIE,
        'remember cookie': OTHER_COOKIE,
        'basic credentials': Buffer.from(`${user.email}:${PASSWORD}`).toString('base64'),
      };
      for (const line of logs) {
        assert.doesNotThrow(() => JSON.parse(line), `not a JSON line: ${line.slice(0, 80)}`);
        for (const [what, value] of Object.entries(forbidden)) {
          assert.ok(!line.includes(value), `${what} in log line: ${line.slice(0, 200)}`);
        }
        assert.doesNotMatch(line, /LOGSECRET/);
      }

      // The request lines are there, with secrets in URLs replaced.
      const urls = logs
        .map((line) => JSON.parse(line))
        .flatMap((entry) => (entry.req?.url ? [entry.req.url] : []));
      assert.ok(urls.includes('/api/user?token=[redacted]&api_token=[redacted]'), urls.join('\n'));
      assert.ok(
        urls.some((url: string) => url.startsWith('/reset-password/[redacted]')),
        urls.join('\n'),
      );
    });
  },
  { env: { LOG_LEVEL: 'trace', API_RATE_LIMIT: '0' } },
);
