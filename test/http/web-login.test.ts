import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { countRows, createTestApp, describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const FAILED = 'These credentials do not match our records.';
const THROTTLE = /Too many login attempts\. Please try again in (\d+) seconds\./;
const clock = fakeClock();

/** The page without its per-session parts, to compare two answers. */
const stripTokens = (body: string) => body.replace(/name="_token" value="[^"]*"/g, '');

await describeApp(
  'web login (docs/guides/sessions-and-spas.md)',
  (ctx) => {
    test('validation first: e-mail required + format, password required + min 6 (HTML and JSON)', async () => {
      const { app, db } = ctx();
      const browser = new Browser(app);
      await browser.get('/login');
      const audits = await countRows(db, 'audit_log');
      const cases: [Record<string, string>, Record<string, string[]>][] = [
        [
          { email: '', password: '' },
          { email: ['The email field is required.'], password: ['The password field is required.'] },
        ],
        [
          { email: 'nobody', password: 'secret12' },
          { email: ['The email field must be a valid email address.'] },
        ],
        [
          { email: 'a@example.com', password: '12345' },
          { password: ['The password field must be at least 6 characters.'] },
        ],
      ];
      for (const [input, errors] of cases) {
        const page = await browser.post('/login', input);
        assert.equal(page.statusCode, 422);
        assert.equal(page.headers.location, undefined);
        for (const [fieldName, [message]] of Object.entries(errors)) {
          assert.ok(page.body.includes(`id="field-${fieldName}-error">${message}</p>`), message);
        }
        const json = await browser.postJson('/login', input);
        assert.equal(json.statusCode, 422);
        const messages = Object.values(errors).flat();
        assert.deepEqual(json.json(), {
          message: messages.length > 1 ? `${messages[0]} (and 1 more error)` : messages[0],
          errors,
        });
      }
      assert.equal(
        await countRows(db, 'audit_log'),
        audits,
        'malformed input never reaches the credential check',
      );
    });

    test('wrong password: the form again, 422, auth.failed on email, e-mail kept, no redirect', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const browser = new Browser(app);
      await browser.get('/login');
      const page = await browser.post('/login', {
        email: user.email,
        password: 'not-the-password',
        remember: '1',
      });
      assert.equal(page.statusCode, 422);
      assert.equal(page.headers.location, undefined);
      assert.ok(page.body.includes(`id="field-email-error">${FAILED}</p>`));
      assert.ok(page.body.includes(`value="${user.email}"`));
      assert.ok(page.body.includes('name="remember" value="1" checked'), 'the remember box stays ticked');
      assert.ok(!page.body.includes('not-the-password'));
      const json = await browser.postJson('/login', { email: user.email, password: 'not-the-password' });
      assert.equal(json.statusCode, 422);
      assert.deepEqual(json.json(), { message: FAILED, errors: { email: [FAILED] } });
    });

    test('unknown e-mail and disabled account fail exactly like a wrong password', async () => {
      const { app, createUser, db } = ctx();
      const user = await createUser();
      const disabled = await createUser();
      await db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', disabled.id).execute();
      const browser = new Browser(app);
      await browser.get('/login');
      const wrong = await browser.post('/login', { email: user.email, password: 'wrong-password' });
      const unknown = await browser.post('/login', {
        email: 'nobody-here@example.com',
        password: 'wrong-password',
      });
      const refused = await browser.post('/login', { email: disabled.email, password: disabled.password });
      assert.equal(refused.statusCode, 422);
      assert.equal(
        stripTokens(refused.body).replace(disabled.email, 'X'),
        stripTokens(wrong.body).replace(user.email, 'X'),
      );
      assert.equal(unknown.statusCode, 422);
      assert.equal(
        stripTokens(unknown.body).replace('nobody-here@example.com', 'X'),
        stripTokens(wrong.body).replace(user.email, 'X'),
      );
      assert.equal(browser.cookies.get('gatehouse_remember'), undefined);
      assert.equal((await browser.get('/dashboard')).statusCode, 302, 'no session for the disabled account');
    });

    test('"remember": null is "not ticked" (react-sanctum sends it); other non-booleans stay refused', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const browser = new Browser(app);
      await browser.get('/login');
      const wrongType = await browser.postJson('/login', {
        email: user.email,
        password: user.password,
        remember: 'maybe',
      });
      assert.equal(wrongType.statusCode, 422);
      assert.deepEqual(wrongType.json().errors, { remember: ['The remember field must be true or false.'] });
      const ok = await browser.postJson('/login', {
        email: user.email,
        password: user.password,
        remember: null,
      });
      assert.equal(ok.statusCode, 204);
      assert.equal(browser.cookies.get('gatehouse_remember'), undefined, 'null does not remember');
      // Only here: on /api/tokens an explicit null would widen a token to ["*"], so it is still refused.
      const token = await app.inject({
        method: 'POST',
        url: '/api/tokens',
        payload: { email: user.email, password: user.password, device_name: 'x', abilities: null },
      });
      assert.equal(token.statusCode, 422);
    });

    test('success: new session id, 302 to LOGIN_REDIRECT; JSON: 204', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const browser = new Browser(app);
      await browser.get('/login');
      const before = browser.cookies.get('gatehouse_session');
      const ok = await browser.post('/login', { email: user.email.toUpperCase(), password: user.password });
      assert.equal(ok.statusCode, 302);
      assert.equal(ok.headers.location, '/dashboard');
      assert.notEqual(browser.cookies.get('gatehouse_session'), before);

      const spa = new Browser(app);
      await spa.get('/login');
      const json = await spa.postJson('/login', { email: user.email, password: user.password });
      assert.equal(json.statusCode, 204);
      assert.equal(json.body, '');
      assert.equal((await spa.get('/dashboard')).statusCode, 200);
    });

    test('a guest sent to /login comes back to the page it asked for', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const browser = new Browser(app);
      const bounced = await browser.get('/profile?tab=tokens');
      assert.equal(bounced.statusCode, 302);
      assert.equal(bounced.headers.location, '/login');
      await browser.get('/login');
      const wrong = await browser.post('/login', { email: user.email, password: 'wrong-password' });
      assert.equal(wrong.statusCode, 422, 'a failure keeps the intended URL for the next try');
      const login = await browser.post('/login', { email: user.email, password: user.password });
      assert.equal(login.headers.location, '/profile?tab=tokens');
      const next = new Browser(app);
      await next.get('/login');
      const plain = await next.post('/login', { email: user.email, password: user.password });
      assert.equal(plain.headers.location, '/dashboard', 'used once, then forgotten');
    });

    test('throttle: 5 failures per e-mail + IP → 429 auth.throttle + Retry-After, even with the right password', async () => {
      const { app, createUser, db } = ctx();
      const user = await createUser();
      const browser = new Browser(app);
      await browser.get('/login');
      for (let i = 1; i <= 5; i++) {
        const failed = await browser.post('/login', { email: user.email, password: `wrong-${i}-pass` });
        assert.equal(failed.statusCode, 422, `failure ${i}`);
      }
      const sixth = await browser.post('/login', {
        email: user.email.toUpperCase(),
        password: user.password,
      });
      assert.equal(sixth.statusCode, 429);
      assert.equal(sixth.headers.location, undefined);
      const seconds = Number(THROTTLE.exec(sixth.body)?.[1]);
      assert.ok(seconds >= 1 && seconds <= 60, `seconds filled in: ${seconds}`);
      assert.equal(sixth.headers['retry-after'], String(seconds));
      assert.ok(sixth.body.includes(`value="${user.email.toUpperCase()}"`));

      const json = await browser.postJson('/login', { email: user.email, password: user.password });
      assert.equal(json.statusCode, 429);
      assert.match(json.json().message, THROTTLE);
      assert.deepEqual(Object.keys(json.json().errors), ['email']);
      assert.ok(Number(json.headers['retry-after']) >= 1);
      const lockouts = await db
        .selectFrom('audit_log')
        .select('id')
        .where('event', '=', 'login.lockout')
        .execute();
      assert.ok(lockouts.length >= 1, 'the lockout is audited');

      const otherIp = await app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: '10.1.2.3',
        headers: { cookie: browser.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          _token: browser.csrf!,
          email: user.email,
          password: user.password,
        }).toString(),
      });
      assert.equal(otherIp.statusCode, 302, 'the count is per e-mail and IP');

      clock.advance(61_000);
      const later = new Browser(app);
      await later.get('/login');
      const afterWindow = await later.post('/login', { email: user.email, password: user.password });
      assert.equal(afterWindow.statusCode, 302, 'allowed again after 60 s');
    });

    test('only rejected credentials count, and a success clears the count', async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const browser = new Browser(app);
      await browser.get('/login');
      for (let i = 0; i < 8; i++) {
        const malformed = await browser.post('/login', { email: user.email, password: '123' });
        assert.equal(malformed.statusCode, 422);
      }
      for (let i = 0; i < 4; i++)
        await browser.post('/login', { email: user.email, password: 'wrong-password' });
      const success = await browser.post('/login', { email: user.email, password: user.password });
      assert.equal(success.statusCode, 302, 'malformed input did not count');
      await browser.get('/dashboard');
      assert.equal((await browser.post('/logout')).statusCode, 302);
      await browser.get('/login');
      for (let i = 1; i <= 5; i++) {
        const failed = await browser.post('/login', { email: user.email, password: 'wrong-password' });
        assert.equal(failed.statusCode, 422, `failure ${i} after the reset`);
      }
      const refused = await browser.post('/login', { email: user.email, password: user.password });
      assert.equal(refused.statusCode, 429);
    });
  },
  { overrides: { clock } },
);

test('LOGIN_REDIRECT sets where a login without an intended URL goes', async () => {
  const t = await createTestApp('sqlite', { env: { LOGIN_REDIRECT: '/profile' } });
  try {
    const user = await t.createUser();
    const browser = new Browser(t.app);
    await browser.get('/login');
    const login = await browser.post('/login', { email: user.email, password: user.password });
    assert.equal(login.headers.location, '/profile');
    assert.equal((await browser.get('/login')).headers.location, '/profile');
  } finally {
    await t.close();
  }
});
