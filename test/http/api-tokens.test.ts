import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { sha256Hex } from '../../src/lib/crypto.ts';
import { assertJsonError, assertUnchanged, bearer, requestToken, tokenId, tokenRow } from '../helpers/api.ts';
import { countRows, describeApp } from '../helpers/app.ts';
import { insertUserRow } from '../helpers/users.ts';

/** Laravel's UserFactory hash of "password" (bcrypt, PHP's $2y$ form): an account imported from Laravel. */
const LARAVEL_HASH = '$2y$10$92IXUNpkjO0rOQ5byMi.Ye4oKoEa3Ro9llC/.og/at2.uheWG/igi';

await describeApp(
  'API tokens',
  (ctx) => {
    test('POST /api/tokens issues a Sanctum-shaped token; only its SHA-256 is stored', async () => {
      const { app, db, createUser } = ctx();
      const user = await createUser({ name: 'Ada' });
      const issued = await requestToken(app, {
        email: user.email.toUpperCase(),
        password: user.password,
        device_name: 'laptop',
      });
      assert.equal(issued.statusCode, 200);
      assert.match(String(issued.headers['content-type']), /^application\/json/);
      const body = issued.json();
      assert.deepEqual(Object.keys(body).sort(), ['token', 'user']);
      assert.deepEqual(body.user, { id: user.id, name: 'Ada', email: user.email });
      assert.match(body.token, /^\d+\|[A-Za-z0-9]{40}[0-9a-f]{8}$/);

      const row = await tokenRow(db, tokenId(body.token));
      assert.ok(row, 'the id before the bar is the row id');
      const secret = body.token.slice(body.token.indexOf('|') + 1);
      assert.equal(row.token, sha256Hex(secret));
      assert.equal(row.user_id, user.id);
      assert.equal(row.name, 'laptop');
      assert.deepEqual(JSON.parse(row.abilities), ['*']);
      assert.equal(row.last_used_at, null);
      const dump = JSON.stringify(await db.selectFrom('personal_access_tokens').selectAll().execute());
      assert.ok(!dump.includes(secret), 'the plaintext secret is nowhere in the table');
    });

    test('GET /api/user answers exactly the public fields', async () => {
      const { app, createUser, issueToken } = ctx();
      const user = await createUser({ name: 'Grace', verified: false });
      const token = await issueToken(user.email, user.password);
      const me = await app.inject({ url: '/api/user', headers: bearer(token) });
      assert.equal(me.statusCode, 200);
      const profile = me.json();
      assert.deepEqual(Object.keys(profile).sort(), [
        'created_at',
        'email',
        'email_verified_at',
        'id',
        'name',
        'organizations',
        'updated_at',
      ]);
      assert.deepEqual(profile.organizations, []);
      assert.equal(profile.id, user.id);
      assert.equal(profile.email, user.email);
      assert.equal(profile.email_verified_at, null);
      assert.match(profile.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.doesNotMatch(me.body, /argon2|password|remember/i);

      const verified = await createUser({ verified: true });
      const other = await issueToken(verified.email, verified.password);
      const them = (await app.inject({ url: '/api/user', headers: bearer(other) })).json();
      assert.match(them.email_verified_at, /Z$/);
    });

    test('wrong password and unknown e-mail get the same 401 body and issue nothing', async () => {
      const { app, db, createUser } = ctx();
      const user = await createUser();
      const tokens = await countRows(db, 'personal_access_tokens');
      const wrong = await requestToken(app, { email: user.email, password: 'nope-nope', device_name: 'x' });
      const unknown = await requestToken(app, {
        email: 'nobody@example.com',
        password: 'nope-nope',
        device_name: 'x',
      });
      assertJsonError(wrong, 401);
      assertJsonError(unknown, 401);
      assert.equal(wrong.body, unknown.body);
      assert.deepEqual(wrong.json(), { message: 'The provided credentials are incorrect.' });
      assert.equal(wrong.headers['www-authenticate'], unknown.headers['www-authenticate']);
      assert.equal(await countRows(db, 'personal_access_tokens'), tokens);
    });

    test('GET /api/tokens lists only the caller’s tokens, newest first, never a secret or hash', async () => {
      const { app, db, createUser, issueToken } = ctx();
      const user = await createUser();
      const stranger = await createUser();
      const first = await issueToken(user.email, user.password, { device_name: 'phone' });
      const second = await issueToken(user.email, user.password, {
        device_name: 'ci',
        abilities: ['posts:read', 'posts:read'],
      });
      await issueToken(stranger.email, stranger.password, { device_name: 'theirs' });

      const list = await app.inject({ url: '/api/tokens', headers: bearer(first) });
      assert.equal(list.statusCode, 200);
      const { data } = list.json();
      assert.deepEqual(
        data.map((t: { id: number }) => t.id),
        [tokenId(second), tokenId(first)],
      );
      for (const entry of data) {
        assert.deepEqual(Object.keys(entry).sort(), [
          'abilities',
          'created_at',
          'expires_at',
          'id',
          'last_used_at',
          'name',
        ]);
      }
      assert.deepEqual(data[0].abilities, ['posts:read'], 'duplicates collapse');
      assert.deepEqual(data[1].abilities, ['*']);
      assert.equal(data[1].name, 'phone');
      assert.match(data[1].last_used_at, /Z$/, 'the listing request itself used the token');
      for (const plain of [first, second]) {
        const secret = plain.slice(plain.indexOf('|') + 1);
        assert.ok(!list.body.includes(secret), 'no plaintext secret');
        assert.ok(!list.body.includes(sha256Hex(secret)), 'no stored hash');
      }
      const hashes = await db.selectFrom('personal_access_tokens').select('token').execute();
      for (const { token } of hashes) assert.ok(!list.body.includes(token));
    });

    test('abilities: `*` does everything; posts:read / posts:write gate the posts routes', async () => {
      const { app, db, createUser, issueToken } = ctx();
      const user = await createUser();
      const all = bearer(await issueToken(user.email, user.password));
      const reader = bearer(await issueToken(user.email, user.password, { abilities: ['posts:read'] }));
      const writer = bearer(await issueToken(user.email, user.password, { abilities: ['posts:write'] }));
      const none = bearer(await issueToken(user.email, user.password, { abilities: [] }));

      const created = await app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: all,
        payload: { title: 'First', body: 'Hello' },
      });
      assert.equal(created.statusCode, 201);
      const post = created.json().data;
      assert.deepEqual(Object.keys(post).sort(), [
        'body',
        'created_at',
        'id',
        'title',
        'updated_at',
        'user_id',
      ]);
      assert.equal(post.user_id, user.id);
      const second = await app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: writer,
        payload: { title: 'Second', body: 'Again' },
      });
      assert.equal(second.statusCode, 201);

      const listed = await app.inject({ url: '/api/posts', headers: reader });
      assert.equal(listed.statusCode, 200);
      assert.deepEqual(
        listed.json().data.map((p: { title: string }) => p.title),
        ['Second', 'First'],
      );
      assert.equal((await app.inject({ url: '/api/posts', headers: all })).statusCode, 200);

      for (const [headers, method, label] of [
        [reader, 'POST', 'posts:read cannot write'],
        [writer, 'GET', 'posts:write cannot read'],
        [none, 'GET', 'no abilities cannot read'],
        [none, 'POST', 'no abilities cannot write'],
      ] as const) {
        await assertUnchanged(db, async () => {
          const denied = await app.inject({
            method,
            url: '/api/posts',
            headers,
            ...(method === 'POST' ? { payload: { title: 't', body: 'b' } } : {}),
          });
          assertJsonError(denied, 403, label);
          assert.deepEqual(denied.json(), { message: 'Invalid ability provided.' });
          assert.equal(
            denied.headers['www-authenticate'],
            'Bearer realm="Gatehouse", error="insufficient_scope"',
          );
        });
      }
      assert.equal((await app.inject({ url: '/api/user', headers: none })).statusCode, 200);
    });

    test('POST /api/posts validates its body and changes nothing when it fails', async () => {
      const { app, db, createUser, issueToken } = ctx();
      const user = await createUser();
      const auth = bearer(await issueToken(user.email, user.password));
      for (const [payload, field] of [
        [{}, 'title'],
        [{ title: 'x'.repeat(256), body: 'b' }, 'title'],
        [{ title: 't', body: 'x'.repeat(65_536) }, 'body'],
        [{ title: ['t'], body: 'b' }, 'title'],
        [{ title: 't', body: 42 }, 'body'],
      ] as const) {
        await assertUnchanged(db, async () => {
          const response = await app.inject({ method: 'POST', url: '/api/posts', headers: auth, payload });
          assertJsonError(response, 422, JSON.stringify(payload).slice(0, 40));
          assert.ok(response.json().errors[field], field);
        });
      }
      const ok = await app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: auth,
        payload: { title: 'x'.repeat(255), body: 'y'.repeat(65_535) },
      });
      assert.equal(ok.statusCode, 201);
    });

    test('DELETE /api/tokens/current revokes that token at once, and only that one', async () => {
      const { app, createUser, issueToken } = ctx();
      const user = await createUser();
      const current = bearer(await issueToken(user.email, user.password));
      const other = bearer(await issueToken(user.email, user.password));
      assert.equal((await app.inject({ url: '/api/user', headers: current })).statusCode, 200);
      const revoked = await app.inject({ method: 'DELETE', url: '/api/tokens/current', headers: current });
      assert.equal(revoked.statusCode, 204);
      assert.equal(revoked.body, '');
      const after = await app.inject({ url: '/api/user', headers: current });
      assertJsonError(after, 401);
      assert.deepEqual(after.json(), { message: 'Unauthenticated.' });
      assert.equal(after.headers['www-authenticate'], 'Bearer realm="Gatehouse", error="invalid_token"');
      assert.equal((await app.inject({ url: '/api/user', headers: other })).statusCode, 200);
    });

    test('DELETE /api/tokens/{id} revokes one of the caller’s tokens; anyone else’s is a 404', async () => {
      const { app, db, createUser, issueToken } = ctx();
      const user = await createUser();
      const stranger = await createUser();
      const mine = await issueToken(user.email, user.password);
      const spare = await issueToken(user.email, user.password);
      const theirs = await issueToken(stranger.email, stranger.password);

      await assertUnchanged(db, async () => {
        for (const id of [
          String(tokenId(theirs)),
          '999999',
          '0',
          '-1',
          'abc',
          '1.5',
          '99999999999999999999',
          '9'.repeat(300),
        ]) {
          const response = await app.inject({
            method: 'DELETE',
            url: `/api/tokens/${id}`,
            headers: bearer(mine),
          });
          assertJsonError(response, 404, id);
        }
      });
      assert.equal((await app.inject({ url: '/api/user', headers: bearer(theirs) })).statusCode, 200);

      const deleted = await app.inject({
        method: 'DELETE',
        url: `/api/tokens/${tokenId(spare)}`,
        headers: bearer(mine),
      });
      assert.equal(deleted.statusCode, 204);
      assert.equal(await tokenRow(db, tokenId(spare)), undefined);
      assertJsonError(await app.inject({ url: '/api/user', headers: bearer(spare) }), 401);
      const again = await app.inject({
        method: 'DELETE',
        url: `/api/tokens/${tokenId(spare)}`,
        headers: bearer(mine),
      });
      assertJsonError(again, 404);
    });

    test('DELETE /api/tokens?name= revokes every caller token of that name, nothing else', async () => {
      const { app, db, createUser, issueToken } = ctx();
      const user = await createUser();
      const stranger = await createUser();
      const keep = await issueToken(user.email, user.password, { device_name: 'laptop' });
      const phoneA = await issueToken(user.email, user.password, { device_name: 'phone' });
      const phoneB = await issueToken(user.email, user.password, { device_name: 'phone' });
      const theirPhone = await issueToken(stranger.email, stranger.password, { device_name: 'phone' });

      const nothing = await app.inject({
        method: 'DELETE',
        url: '/api/tokens?name=tablet',
        headers: bearer(keep),
      });
      assert.equal(nothing.statusCode, 204);
      await assertUnchanged(db, async () => {
        for (const query of [
          'name=',
          'name=%20%20',
          `name=${'x'.repeat(256)}`,
          'name=a&name=b',
          'name=&lang=de',
        ]) {
          const response = await app.inject({
            method: 'DELETE',
            url: `/api/tokens?${query}`,
            headers: bearer(keep),
          });
          assertJsonError(response, 422, query);
          assert.ok(response.json().errors.name, query);
        }
      });

      // A misspelt or bracketed parameter is refused, not read as "delete every token".
      await assertUnchanged(db, async () => {
        for (const query of ['nmae=phone', 'name[]=phone', 'names=phone', 'all=1']) {
          const response = await app.inject({
            method: 'DELETE',
            url: `/api/tokens?${query}`,
            headers: bearer(keep),
          });
          const error = assertJsonError(response, 422, query);
          assert.equal(error.message, `The ${query.split('=')[0]} field is prohibited.`, query);
        }
      });

      const response = await app.inject({
        method: 'DELETE',
        url: '/api/tokens?name=phone',
        headers: bearer(keep),
      });
      assert.equal(response.statusCode, 204);
      for (const gone of [phoneA, phoneB]) {
        assertJsonError(await app.inject({ url: '/api/user', headers: bearer(gone) }), 401);
      }
      assert.equal((await app.inject({ url: '/api/user', headers: bearer(keep) })).statusCode, 200);
      assert.equal((await app.inject({ url: '/api/user', headers: bearer(theirPhone) })).statusCode, 200);

      // Revoking by the calling token's own name logs the caller out too.
      const self = await app.inject({
        method: 'DELETE',
        url: '/api/tokens?name=laptop',
        headers: bearer(keep),
      });
      assert.equal(self.statusCode, 204);
      assertJsonError(await app.inject({ url: '/api/user', headers: bearer(keep) }), 401);
    });

    test('DELETE /api/tokens revokes all of the caller’s tokens (log out everywhere)', async () => {
      const { app, db, createUser, issueToken } = ctx();
      const user = await createUser();
      const stranger = await createUser();
      const tokens = [
        await issueToken(user.email, user.password, { device_name: 'a' }),
        await issueToken(user.email, user.password, { device_name: 'b' }),
        await issueToken(user.email, user.password, { device_name: 'c' }),
      ];
      const theirs = await issueToken(stranger.email, stranger.password);
      const response = await app.inject({
        method: 'DELETE',
        url: '/api/tokens',
        headers: bearer(tokens[1]!),
      });
      assert.equal(response.statusCode, 204);
      for (const token of tokens) {
        assertJsonError(await app.inject({ url: '/api/tokens', headers: bearer(token) }), 401);
      }
      const left = await db
        .selectFrom('personal_access_tokens')
        .select('id')
        .where('user_id', '=', user.id)
        .execute();
      assert.deepEqual(left, []);
      assert.equal((await app.inject({ url: '/api/user', headers: bearer(theirs) })).statusCode, 200);
    });

    test('tokens of a disabled user stop working on the next request; the user cannot get new ones', async () => {
      const { app, db, createUser, issueToken } = ctx();
      const user = await createUser();
      const token = bearer(await issueToken(user.email, user.password));
      assert.equal((await app.inject({ url: '/api/user', headers: token })).statusCode, 200);

      await db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', user.id).execute();
      const refused = await app.inject({ url: '/api/user', headers: token });
      assertJsonError(refused, 401);
      assert.equal(refused.headers['www-authenticate'], 'Bearer realm="Gatehouse", error="invalid_token"');
      assertJsonError(await app.inject({ method: 'DELETE', url: '/api/tokens', headers: token }), 401);
      const tokens = await countRows(db, 'personal_access_tokens');
      const login = await requestToken(app, { email: user.email, password: user.password, device_name: 'x' });
      assert.equal(login.statusCode, 401);
      assert.deepEqual(login.json(), { message: 'The provided credentials are incorrect.' });
      assert.equal(await countRows(db, 'personal_access_tokens'), tokens);

      await db.updateTable('users').set({ disabled_at: null }).where('id', '=', user.id).execute();
      assert.equal((await app.inject({ url: '/api/user', headers: token })).statusCode, 200);
    });

    test('only the Authorization header authenticates: a token in the query string is ignored', async () => {
      const { app, createUser, issueToken } = ctx();
      const user = await createUser();
      const token = await issueToken(user.email, user.password);
      for (const query of ['token', 'api_token', 'access_token', 'bearer']) {
        const response = await app.inject({ url: `/api/user?${query}=${encodeURIComponent(token)}` });
        assertJsonError(response, 401, query);
        assert.equal(response.headers['www-authenticate'], 'Bearer realm="Gatehouse"');
      }
      const both = await app.inject({ url: `/api/user?token=garbage`, headers: bearer(token) });
      assert.equal(both.statusCode, 200);
      assert.equal(
        (await app.inject({ url: '/api/user', headers: { authorization: `bearer ${token}` } })).statusCode,
        200,
      );
    });

    test('the secret must belong to the id: another token’s id or a forged secret is refused', async () => {
      const { app, createUser, issueToken } = ctx();
      const user = await createUser();
      const one = await issueToken(user.email, user.password);
      const two = await issueToken(user.email, user.password);
      const swapped = `${tokenId(two)}|${one.slice(one.indexOf('|') + 1)}`;
      assertJsonError(await app.inject({ url: '/api/user', headers: bearer(swapped) }), 401);
    });
  },
  { env: { API_RATE_LIMIT: '10000' } },
);

// Rehash-on-login, at the configured (OWASP) cost it upgrades to: the test apps hash cheaply otherwise.
await describeApp(
  'API tokens: rehash on login',
  (ctx) => {
    test('a Laravel bcrypt ($2y$) account logs in and is rehashed to argon2id', async () => {
      const { app, db } = ctx();
      const id = await insertUserRow(db, {
        name: 'From Laravel',
        email: 'laravel-import@example.com',
        passwordHash: LARAVEL_HASH,
      });
      const stored = async () =>
        (await db.selectFrom('users').select('password').where('id', '=', id).executeTakeFirstOrThrow())
          .password;

      const wrong = await requestToken(app, {
        email: 'laravel-import@example.com',
        password: 'secret',
        device_name: 'x',
      });
      assert.equal(wrong.statusCode, 401);
      assert.equal(await stored(), LARAVEL_HASH);

      const first = await requestToken(app, {
        email: 'laravel-import@example.com',
        password: 'password',
        device_name: 'x',
      });
      assert.equal(first.statusCode, 200);
      const upgraded = await stored();
      assert.match(upgraded, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

      const second = await requestToken(app, {
        email: 'laravel-import@example.com',
        password: 'password',
        device_name: 'y',
      });
      assert.equal(second.statusCode, 200);
      assert.equal(await stored(), upgraded, 'no second rehash');
    });
  },
  { env: { API_RATE_LIMIT: '10000' }, argon2: OWASP_ARGON2ID },
);
