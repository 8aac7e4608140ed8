import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32Hex } from '../../src/lib/crypto.ts';
import { assertJsonError, assertUnchanged, bearer, tokenId } from '../helpers/api.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';

const json = { 'content-type': 'application/json' };
const MiB = 1024 * 1024;

/** A well-formed (checksum-valid) secret that no token has. */
const forgedSecret = () => {
  const entropy = 'Z'.repeat(39) + 'q';
  return `${entropy}${crc32Hex(entropy)}`;
};

await describeApp(
  'API errors (docs/reference/errors.md)',
  (ctx) => {
    let user: { id: number; email: string; password: string };
    let token = '';

    test('setup: a user with a token', async () => {
      const t = ctx();
      user = await t.createUser();
      token = await t.issueToken(user.email, user.password);
    });

    /** POST /api/tokens with a raw body; the user's real credentials are used where a body has them. */
    const post = (t: TestApp, payload: string | Buffer, headers: Record<string, string> = json) =>
      t.app.inject({ method: 'POST', url: '/api/tokens', headers, payload });

    test('malformed JSON → 400, nothing stored', async () => {
      const t = ctx();
      const bodies = [
        '{',
        '{"email": "a@b.c",}',
        "{'email': 'a@b.c'}",
        '{"email": "a@b.c" "password": "x"}',
        'nul',
        '{"email": "\\u00zz"}',
        Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
        '{"__proto__": {"admin": true}, "email": "a@b.c"}',
        '{"constructor": {"prototype": {"admin": true}}}',
      ];
      await assertUnchanged(t.db, async () => {
        for (const body of bodies) {
          const response = await post(t, body);
          const label = JSON.stringify(String(body));
          assertJsonError(response, 400, label);
        }
      });
      const response = await post(t, '{');
      assert.deepEqual(response.json(), { message: 'The request body is not valid JSON.' });
    });

    test('well-formed JSON of the wrong shape → 422 with Laravel’s summary, nothing stored', async () => {
      const t = ctx();
      const creds = { email: user.email, password: user.password, device_name: 'x' };
      const cases: Array<[unknown, string[]]> = [
        [[], ['email', 'password', 'device_name']],
        [null, ['email', 'password', 'device_name']],
        [42, ['email', 'password', 'device_name']],
        ['a string', ['email', 'password', 'device_name']],
        [true, ['email', 'password', 'device_name']],
        [{}, ['email', 'password', 'device_name']],
        [[creds], ['email', 'password', 'device_name']],
        [{ ...creds, email: { $ne: null } }, ['email']],
        [{ ...creds, email: [user.email] }, ['email']],
        [{ ...creds, email: 12345 }, ['email']],
        [{ ...creds, email: 'not-an-email' }, ['email']],
        [{ ...creds, email: `${'a'.repeat(300)}@example.com` }, ['email']],
        [{ ...creds, email: `${user.email}\u0000` }, ['email']],
        [{ ...creds, password: 12345678 }, ['password']],
        [{ ...creds, password: { length: 8 } }, ['password']],
        [{ ...creds, password: 'x'.repeat(100_000) }, ['password']],
        [{ ...creds, device_name: 42 }, ['device_name']],
        [{ ...creds, device_name: { name: 'x' } }, ['device_name']],
        [{ ...creds, device_name: 'x'.repeat(256) }, ['device_name']],
        [{ ...creds, device_name: 'line\nbreak' }, ['device_name']],
        [{ ...creds, device_name: '   ' }, ['device_name']],
        [{ ...creds, abilities: 'posts:read' }, ['abilities']],
        [{ ...creds, abilities: { 0: '*' } }, ['abilities']],
        [{ ...creds, abilities: [1] }, ['abilities']],
        [{ ...creds, abilities: [null] }, ['abilities']],
        [{ ...creds, abilities: [['*']] }, ['abilities']],
        [{ ...creds, abilities: ['posts'] }, ['abilities']],
        [{ ...creds, abilities: ['POSTS:READ'] }, ['abilities']],
        [{ ...creds, abilities: ['posts:*'] }, ['abilities']],
        [{ ...creds, abilities: ['posts:read:all'] }, ['abilities']],
        [{ ...creds, abilities: ['posts:read', 'x'.repeat(10_000)] }, ['abilities']],
        [{ ...creds, abilities: [`${'a'.repeat(200)}:${'b'.repeat(100)}`] }, ['abilities']],
        [{ ...creds, abilities: Array.from({ length: 101 }, (_, i) => `r${i}:read`) }, ['abilities']],
        [{ ...creds, expires_in: 0 }, ['expires_in']],
        [{ ...creds, expires_in: -1 }, ['expires_in']],
        [{ ...creds, expires_in: 'x' }, ['expires_in']],
        [{ ...creds, expires_in: 1.5 }, ['expires_in']],
        [{ ...creds, expires_in: '1e3' }, ['expires_in']],
        [{ ...creds, expires_in: 1e20 }, ['expires_in']],
        [{ ...creds, expires_in: true }, ['expires_in']],
        [{ ...creds, expires_in: [60] }, ['expires_in']],
        [{ ...creds, expires_in: { seconds: 60 } }, ['expires_in']],
        [
          { email: 'x', password: [], device_name: {}, abilities: 1, expires_in: -5 },
          ['email', 'password', 'device_name', 'abilities', 'expires_in'],
        ],
      ];
      assert.ok(cases.length >= 20);
      await assertUnchanged(t.db, async () => {
        for (const [body, fields] of cases) {
          const label = JSON.stringify(body).slice(0, 60);
          const response = await post(t, JSON.stringify(body));
          const error = assertJsonError(response, 422, label) as {
            message: string;
            errors: Record<string, string[]>;
          };
          assert.deepEqual(Object.keys(error.errors).sort(), [...fields].sort(), label);
          for (const messages of Object.values(error.errors)) {
            assert.equal(messages.length, 1, label);
            assert.match(messages[0]!, /^The .+\.$/, label);
          }
          const first = Object.values(error.errors)[0]![0]!;
          const more = fields.length - 1;
          const summary = more === 0 ? first : `${first} (and ${more} more error${more === 1 ? '' : 's'})`;
          assert.equal(error.message, summary, label);
        }
      });
    });

    test('an explicit null for an optional field is a wrong type, never "all abilities"', async () => {
      const t = ctx();
      for (const extra of [{ abilities: null }, { expires_in: null }]) {
        const before = await t.db
          .selectFrom('personal_access_tokens')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const response = await post(
          t,
          JSON.stringify({ email: user.email, password: user.password, device_name: 'nulls', ...extra }),
        );
        assert.equal(response.statusCode, 422, JSON.stringify(extra));
        const field = Object.keys(extra)[0]!;
        assert.ok(response.json().errors[field], `error on ${field}`);
        const after = await t.db
          .selectFrom('personal_access_tokens')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(after.n), Number(before.n));
      }
    });

    test('422 messages use Laravel’s wording', async () => {
      const t = ctx();
      const empty = (await post(t, '{}')).json();
      assert.deepEqual(empty, {
        message: 'The email field is required. (and 2 more errors)',
        errors: {
          email: ['The email field is required.'],
          password: ['The password field is required.'],
          device_name: ['The device name field is required.'],
        },
      });
      const bad = (
        await post(
          t,
          JSON.stringify({ email: 'nope', password: 'x', device_name: 'y'.repeat(256), expires_in: 0 }),
        )
      ).json();
      assert.deepEqual(bad.errors, {
        email: ['The email field must be a valid email address.'],
        device_name: ['The device name field must not be greater than 255 characters.'],
        expires_in: ['The expires in field must be at least 1.'],
      });
      assert.equal(bad.message, 'The email field must be a valid email address. (and 2 more errors)');
    });

    test('deeply nested JSON is refused without a 500', async () => {
      const t = ctx();
      const depth = 200_000;
      await assertUnchanged(t.db, async () => {
        const response = await post(t, `${'['.repeat(depth)}${']'.repeat(depth)}`);
        assert.ok([400, 422].includes(response.statusCode), String(response.statusCode));
        assertJsonError(response, response.statusCode);
        const nested = await post(t, `{"email": ${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`);
        assert.ok([400, 422].includes(nested.statusCode), String(nested.statusCode));
      });
    });

    test('wrong content types → 415, even with the right credentials; no body at all → 422', async () => {
      const t = ctx();
      const creds = { email: user.email, password: user.password, device_name: 'x' };
      const form = new URLSearchParams(creds).toString();
      const cases: Array<[Record<string, string>, string]> = [
        [{ 'content-type': 'application/x-www-form-urlencoded' }, form],
        [{ 'content-type': 'text/plain' }, JSON.stringify(creds)],
        [{ 'content-type': 'text/plain; charset=utf-8' }, 'hello'],
        [
          { 'content-type': 'multipart/form-data; boundary=x' },
          '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na\r\n--x--',
        ],
        [{ 'content-type': 'application/xml' }, '<email>a@b.c</email>'],
        [{ 'content-type': 'application/octet-stream' }, JSON.stringify(creds)],
        [{ 'content-type': 'application/vnd.api+json' }, JSON.stringify(creds)],
        [{ 'content-type': 'application/jsonp' }, JSON.stringify(creds)],
        [{ 'content-type': 'json' }, JSON.stringify(creds)],
        [{}, JSON.stringify(creds)],
      ];
      await assertUnchanged(t.db, async () => {
        for (const [headers, payload] of cases) {
          const response = await post(t, payload, headers);
          const label = headers['content-type'] ?? '(none)';
          const body = assertJsonError(response, 415, label);
          assert.equal(
            body.message,
            'Unsupported Media Type: this endpoint accepts application/json only.',
            label,
          );
        }
        const noBody = await t.app.inject({ method: 'POST', url: '/api/tokens' });
        assertJsonError(noBody, 422);
        assert.deepEqual(Object.keys(noBody.json().errors), ['email', 'password', 'device_name']);
      });

      // The same bodies as JSON are accepted, with or without a charset and in any letter case.
      for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON']) {
        const response = await post(t, JSON.stringify(creds), { 'content-type': type });
        assert.equal(response.statusCode, 200, type);
      }
    });

    test('POST /api/posts refuses non-JSON bodies with 415 after authenticating', async () => {
      const t = ctx();
      await assertUnchanged(t.db, async () => {
        const form = await t.app.inject({
          method: 'POST',
          url: '/api/posts',
          headers: { ...bearer(token), 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'title=a&body=b',
        });
        assertJsonError(form, 415);
        const guest = await t.app.inject({
          method: 'POST',
          url: '/api/posts',
          headers: { 'content-type': 'text/plain' },
          payload: 'x',
        });
        assertJsonError(guest, 401);
      });
    });

    test('bodies over 1 MiB → 413 whatever their type; just under is read', async () => {
      const t = ctx();
      const big = JSON.stringify({
        email: user.email,
        password: user.password,
        device_name: 'x',
        pad: 'x'.repeat(MiB),
      });
      await assertUnchanged(t.db, async () => {
        for (const [type, payload] of [
          ['application/json', big],
          ['application/x-www-form-urlencoded', `pad=${'x'.repeat(MiB)}`],
          ['text/plain', 'x'.repeat(MiB + 1)],
        ] as const) {
          const response = await post(t, payload, { 'content-type': type });
          const body = assertJsonError(response, 413, type);
          assert.equal(body.message, 'The request body is too large.');
        }
        const posts = await t.app.inject({
          method: 'POST',
          url: '/api/posts',
          headers: { ...bearer(token), ...json },
          payload: JSON.stringify({ title: 't', body: 'x'.repeat(MiB) }),
        });
        assertJsonError(posts, 413);
      });
      const under = JSON.stringify({
        email: user.email,
        password: user.password,
        device_name: 'x',
        pad: 'x'.repeat(MiB - 200),
      });
      assert.ok(Buffer.byteLength(under) < MiB);
      assert.equal((await post(t, under)).statusCode, 200, 'unknown fields are ignored');
    });

    test('garbage Authorization headers → 401 with WWW-Authenticate, never 500, nothing deleted', async () => {
      const t = ctx();
      const secret = token.slice(token.indexOf('|') + 1);
      const headers = [
        'Bearer',
        'Bearer ',
        'Bearer     ',
        'Bearer 1|',
        'Bearer |',
        `Bearer |${secret}`,
        'Bearer abc|def',
        'Bearer 99999999999999999999|x',
        `Bearer 99999999999999999999|${secret}`,
        `Bearer 2147483648|${secret}`,
        `Bearer 0|${secret}`,
        `Bearer -1|${secret}`,
        `Bearer 1.5|${secret}`,
        `Bearer ${secret}`,
        `Bearer ${tokenId(token)}|${forgedSecret()}`,
        `Bearer ${tokenId(token)}|${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}`,
        `Bearer ${token}x`,
        `Bearer ${token} ${token}`,
        `Bearer ${token},${token}`,
        `Bearer ${tokenId(token)} |${secret}`,
        `Bearer ${tokenId(token)}| ${secret}`,
        `Bearer 1|${'a'.repeat(8000)}`,
        'bearer garbage',
        'BEARER 1|x',
        'Bearer null',
        'Bearer undefined',
        'Bearer [object Object]',
        'Bearer 1|é',
        `Bearer${token}`,
        `Token ${token}`,
        `Basic ${Buffer.from(`${user.email}:${user.password}`).toString('base64')}`,
        token,
      ];
      const routes = [
        { method: 'GET', url: '/api/user' },
        { method: 'GET', url: '/api/tokens' },
        { method: 'GET', url: '/api/posts' },
        { method: 'DELETE', url: '/api/tokens' },
        { method: 'DELETE', url: '/api/tokens/current' },
        { method: 'DELETE', url: `/api/tokens/${tokenId(token)}` },
      ] as const;
      await assertUnchanged(t.db, async () => {
        for (const authorization of headers) {
          for (const route of routes) {
            const response = await t.app.inject({ ...route, headers: { authorization } });
            const label = `${route.method} ${route.url} ${authorization.slice(0, 50)}`;
            assertJsonError(response, 401, label);
            assert.deepEqual(response.json(), { message: 'Unauthenticated.' }, label);
            const challenge = /^bearer\b/i.test(authorization)
              ? 'Bearer realm="Gatehouse", error="invalid_token"'
              : 'Bearer realm="Gatehouse"';
            assert.equal(response.headers['www-authenticate'], challenge, label);
          }
        }
      });
      assert.equal((await t.app.inject({ url: '/api/user', headers: bearer(token) })).statusCode, 200);
    });

    test('no Authorization header → 401 with a bare Bearer challenge', async () => {
      const t = ctx();
      for (const route of ['/api/user', '/api/tokens', '/api/posts']) {
        const response = await t.app.inject({ url: route });
        assertJsonError(response, 401, route);
        assert.equal(response.headers['www-authenticate'], 'Bearer realm="Gatehouse"');
      }
    });

    test('unknown API paths → JSON 404', async () => {
      const t = ctx();
      for (const url of ['/api/nope', '/api/tokens/1/extra', '/api/users']) {
        const response = await t.app.inject({ url, headers: bearer(token) });
        assertJsonError(response, 404, url);
      }
      // Router-level failures answer in the same shape, without echoing the path.
      const badEncoding = await t.app.inject({
        method: 'DELETE',
        url: '/api/tokens/%E0%A4%A',
        headers: bearer(token),
      });
      assert.deepEqual(assertJsonError(badEncoding, 400), { message: 'Bad Request.' });
      const longId = await t.app.inject({
        method: 'DELETE',
        url: `/api/tokens/${'9'.repeat(500)}`,
        headers: bearer(token),
      });
      assert.deepEqual(assertJsonError(longId, 404), { message: 'Not Found.' });
      const html = await t.app.inject({ url: '/api/nope', headers: { accept: 'text/html' } });
      assertJsonError(html, 404, 'API paths answer JSON whatever Accept says');
    });
  },
  { env: { API_RATE_LIMIT: '0' } },
);

await describeApp(
  'unexpected errors',
  (ctx) => {
    test('a throwing route → 500 {"message":"Server Error"}, no stack, logged', async () => {
      const { app, logs } = ctx();
      const response = await app.inject({ url: '/api/boom' });
      assert.equal(response.statusCode, 500);
      assert.deepEqual(response.json(), { message: 'Server Error' });
      assert.ok(!response.body.includes('kaboom'));
      assert.ok(
        logs.some((line) => line.includes('kaboom')),
        'the cause is in the log',
      );
    });
  },
  {
    build: {
      plugins: [
        async (app) => {
          app.get('/api/boom', async () => {
            throw new Error('kaboom: internal detail');
          });
        },
      ],
    },
  },
);
