import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countRows, describeEachDialect } from '../helpers/app.ts';

await describeEachDialect('API tokens', (ctx) => {
  test('issues a Sanctum-shaped token that authenticates GET /api/user', async () => {
    const { app, createUser } = ctx();
    const user = await createUser({ name: 'Ada' });
    const issued = await app.inject({
      method: 'POST',
      url: '/api/tokens',
      payload: { email: user.email.toUpperCase(), password: user.password, device_name: 'laptop' },
    });
    assert.equal(issued.statusCode, 200);
    const body = issued.json();
    assert.deepEqual(Object.keys(body.user).sort(), ['email', 'id', 'name']);
    assert.equal(body.user.id, user.id);
    assert.match(body.token, /^\d+\|[A-Za-z0-9]{40}[0-9a-f]{8}$/);

    const me = await app.inject({ url: '/api/user', headers: { authorization: `Bearer ${body.token}` } });
    assert.equal(me.statusCode, 200);
    const profile = me.json();
    assert.deepEqual(Object.keys(profile).sort(), [
      'created_at',
      'email',
      'email_verified_at',
      'id',
      'name',
      'updated_at',
    ]);
    assert.equal(profile.name, 'Ada');
  });

  test('wrong password and unknown e-mail get the same 401 body', async () => {
    const { app, createUser } = ctx();
    const user = await createUser();
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/tokens',
      payload: { email: user.email, password: 'nope-nope', device_name: 'x' },
    });
    const unknown = await app.inject({
      method: 'POST',
      url: '/api/tokens',
      payload: { email: 'nobody@example.com', password: 'nope-nope', device_name: 'x' },
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    assert.equal(wrong.body, unknown.body);
    assert.deepEqual(wrong.json(), { message: 'The provided credentials are incorrect.' });
  });

  test('missing token → 401 with WWW-Authenticate; garbage never 500s', async () => {
    const { app } = ctx();
    const none = await app.inject({ url: '/api/user' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.headers['www-authenticate'], 'Bearer');
    assert.deepEqual(none.json(), { message: 'Unauthenticated.' });
    for (const header of [
      'Bearer',
      'Bearer 1|',
      'Bearer abc|def',
      'Bearer 99999999999999999999|x',
      'Basic abc',
    ]) {
      const response = await app.inject({ url: '/api/user', headers: { authorization: header } });
      assert.equal(response.statusCode, 401, header);
    }
    const sent = await app.inject({ url: '/api/user', headers: { authorization: 'Bearer 1|x' } });
    assert.equal(sent.headers['www-authenticate'], 'Bearer error="invalid_token"');
  });

  test('abilities gate posts; revocation applies on the next request', async () => {
    const { app, createUser, issueToken, db } = ctx();
    const user = await createUser();
    const reader = await issueToken(user.email, user.password, { abilities: ['posts:read'] });
    const auth = { authorization: `Bearer ${reader}` };
    assert.equal((await app.inject({ url: '/api/posts', headers: auth })).statusCode, 200);
    const before = await countRows(db, 'posts');
    const denied = await app.inject({
      method: 'POST',
      url: '/api/posts',
      headers: auth,
      payload: { title: 't', body: 'b' },
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.headers['www-authenticate'], 'Bearer error="insufficient_scope"');
    assert.deepEqual(denied.json(), { message: 'Invalid ability provided.' });
    assert.equal(await countRows(db, 'posts'), before);

    const revoke = await app.inject({ method: 'DELETE', url: '/api/tokens/current', headers: auth });
    assert.equal(revoke.statusCode, 204);
    assert.equal((await app.inject({ url: '/api/posts', headers: auth })).statusCode, 401);
  });
});
