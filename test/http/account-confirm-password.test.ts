import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { formRoute } from '../../src/http/form-methods.ts';
import { requirePasswordConfirmation } from '../../src/http/password-confirmation.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const clock = fakeClock(Date.UTC(2026, 7, 1, 9));
const SECOND = 1000;

/**
 * Probe routes as a later feature (two-factor, passkeys) would declare them: the exported preHandler
 * and the `_method` helper, nothing else.
 */
async function probes(app: FastifyInstance) {
  const web = app.requireAuth(['web']);
  app.get('/user/probe', { preHandler: [web, requirePasswordConfirmation] }, async () => ({ ok: true }));
  const answer = (what: string) => async () => ({ did: what });
  formRoute(app, 'POST', '/user/probe-form', [web], answer('post'));
  formRoute(app, 'PUT', '/user/probe-form', [web], answer('put'));
  formRoute(app, 'DELETE', '/user/probe-form', [web, requirePasswordConfirmation], answer('delete'));
}

async function signedIn(t: TestApp, headers: Record<string, string> = {}) {
  const user = await t.createUser();
  const browser = new Browser(t.app, headers);
  await browser.get('/login');
  assert.equal(
    (await browser.post('/login', { email: user.email, password: user.password })).statusCode,
    302,
  );
  await browser.get('/dashboard');
  return { user, browser };
}

function send(browser: Browser, method: 'PUT' | 'DELETE' | 'POST', url: string, body: object = {}) {
  return browser.app.inject({
    method,
    url,
    payload: body,
    headers: { accept: 'application/json', cookie: browser.cookieHeader(), 'x-csrf-token': browser.csrf! },
  });
}

await describeApp(
  'password confirmation and form methods (docs/guides/account.md)',
  (ctx) => {
    test('a guest: HTML 302 /login (then back), JSON 401', async () => {
      const t = ctx();
      const page = await t.app.inject({ url: '/user/confirm-password' });
      assert.equal(page.statusCode, 302);
      assert.equal(page.headers.location, '/login');
      const status = await t.app.inject({
        url: '/user/confirmed-password-status',
        headers: { accept: 'application/json' },
      });
      assert.equal(status.statusCode, 401);
      assert.deepEqual(status.json(), { message: 'Unauthenticated.' });
      const put = await t.app.inject({
        method: 'PUT',
        url: '/user/probe-form',
        headers: { accept: 'application/json' },
      });
      assert.equal(put.statusCode, 419, 'CSRF is checked first, as for every state change');
    });

    test('a fresh login is no confirmation: JSON 423, HTML to the form and back to the page', async () => {
      const t = ctx();
      const { user, browser } = await signedIn(t);
      const status = await browser.get('/user/confirmed-password-status', { accept: 'application/json' });
      assert.deepEqual(status.json(), { confirmed: false });
      const locked = await browser.get('/user/probe', { accept: 'application/json' });
      assert.equal(locked.statusCode, 423);
      assert.deepEqual(locked.json(), { message: 'Password confirmation required.' });

      const html = await browser.get('/user/probe?x=1');
      assert.equal(html.statusCode, 302);
      assert.equal(html.headers.location, '/user/confirm-password');
      const form = await browser.get('/user/confirm-password');
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /Confirm your password/);
      assert.match(
        form.body,
        /<input id="field-password" name="password" type="password" autocomplete="current-password" required autofocus/,
      );

      const wrong = await browser.post('/user/confirm-password', { password: 'not the password' });
      assert.equal(wrong.statusCode, 422);
      assert.match(wrong.body, /The provided password was incorrect\./);
      assert.match(wrong.body, /aria-invalid="true"/);
      const ok = await browser.post('/user/confirm-password', { password: user.password });
      assert.equal(ok.statusCode, 302);
      assert.equal(ok.headers.location, '/user/probe?x=1', 'back to the intended URL');
      assert.deepEqual((await browser.get('/user/probe')).json(), { ok: true });
      assert.deepEqual(
        (await browser.get('/user/confirmed-password-status', { accept: 'application/json' })).json(),
        {
          confirmed: true,
        },
      );
      const audit = await t.db
        .selectFrom('audit_log')
        .select(['event', 'subject_id'])
        .where('subject_id', '=', user.id)
        .where('event', 'in', ['user.password_confirmed', 'user.password_check_failed'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => a.event),
        ['user.password_check_failed', 'user.password_confirmed'],
      );
    });

    test('JSON: 422 on password, 204 on success, expiry after PASSWORD_TIMEOUT', async () => {
      const t = ctx();
      const { user, browser } = await signedIn(t);
      const missing = await browser.postJson('/user/confirm-password', {});
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json().errors, { password: ['The password field is required.'] });
      const wrong = await browser.postJson('/user/confirm-password', { password: 'nope nope' });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json(), {
        message: 'The provided password was incorrect.',
        errors: { password: ['The provided password was incorrect.'] },
      });
      const ok = await browser.postJson('/user/confirm-password', { password: user.password });
      assert.equal(ok.statusCode, 204);
      assert.equal((await browser.get('/user/probe', { accept: 'application/json' })).statusCode, 200);
      clock.advance(10 * SECOND - 1); // PASSWORD_TIMEOUT=10 in this suite
      assert.equal((await browser.get('/user/probe', { accept: 'application/json' })).statusCode, 200);
      clock.advance(1);
      assert.equal((await browser.get('/user/probe', { accept: 'application/json' })).statusCode, 423);
      assert.deepEqual(
        (await browser.get('/user/confirmed-password-status', { accept: 'application/json' })).json(),
        {
          confirmed: false,
        },
      );
    });

    test('wrong passwords count toward the login throttle: the 6th is refused even when right', async () => {
      const t = ctx();
      const { user, browser } = await signedIn(t);
      for (let i = 0; i < 5; i++) {
        assert.equal(
          (await browser.postJson('/user/confirm-password', { password: `wrong ${i} x` })).statusCode,
          422,
        );
      }
      const sixth = await browser.postJson('/user/confirm-password', { password: user.password });
      assert.equal(sixth.statusCode, 429);
      assert.match(String(sixth.headers['retry-after']), /^\d+$/);
      assert.match(
        sixth.json().errors.password[0],
        /^Too many login attempts\. Please try again in \d+ seconds\.$/,
      );
      // The same counter as the login form: a login from this IP is refused as well.
      const login = new Browser(t.app);
      await login.get('/login');
      assert.equal(
        (await login.post('/login', { email: user.email, password: user.password })).statusCode,
        429,
      );
      clock.advance(61 * SECOND);
    });

    test('CSRF: a confirmation without the token is 419 and confirms nothing', async () => {
      const t = ctx();
      const { user, browser } = await signedIn(t);
      const response = await t.app.inject({
        method: 'POST',
        url: '/user/confirm-password',
        payload: { password: user.password },
        headers: { accept: 'application/json', cookie: browser.cookieHeader() },
      });
      assert.equal(response.statusCode, 419);
      assert.deepEqual(
        (await browser.get('/user/confirmed-password-status', { accept: 'application/json' })).json(),
        {
          confirmed: false,
        },
      );
    });

    test('_method: form POSTs reach PUT and DELETE; JSON bodies and unknown methods do not', async () => {
      const t = ctx();
      const { user, browser } = await signedIn(t);
      assert.deepEqual((await browser.post('/user/probe-form', { _method: 'put' })).json(), { did: 'put' });
      assert.deepEqual((await browser.post('/user/probe-form', {})).json(), { did: 'post' });
      assert.deepEqual((await send(browser, 'PUT', '/user/probe-form')).json(), { did: 'put' });
      // A JSON body's _method is not honoured: the plain POST runs.
      assert.deepEqual((await send(browser, 'POST', '/user/probe-form', { _method: 'PUT' })).json(), {
        did: 'post',
      });
      const unknown = await browser.post('/user/probe-form', { _method: 'PATCH' });
      assert.equal(unknown.statusCode, 405);
      assert.equal(unknown.headers.allow, 'POST, PUT, DELETE');
      // The overridden route keeps its preHandlers: DELETE needs a confirmation, by form as by method.
      const locked = await browser.post(
        '/user/probe-form',
        { _method: 'DELETE' },
        { referer: 'http://gatehouse.test/profile' },
      );
      assert.equal(locked.statusCode, 302);
      assert.equal(locked.headers.location, '/user/confirm-password');
      assert.equal((await send(browser, 'DELETE', '/user/probe-form')).statusCode, 423);
      const back = await browser.post('/user/confirm-password', { password: user.password });
      assert.equal(back.headers.location, '/profile', 'a form goes back to the page it was on');
      assert.deepEqual((await browser.post('/user/probe-form', { _method: 'DELETE' })).json(), {
        did: 'delete',
      });
      // Without the CSRF token the override changes nothing.
      const forged = await browser.post('/user/probe-form', { _method: 'DELETE', _token: 'x' });
      assert.equal(forged.statusCode, 419);
    });

    test('the confirmation page in de, fr and es', async () => {
      const t = ctx();
      const { browser } = await signedIn(t);
      const titles = {
        de: 'Passwort bestätigen',
        fr: 'Confirmez votre mot de passe',
        es: 'Confirme su contraseña',
      };
      for (const [lang, title] of Object.entries(titles)) {
        const page = await browser.get(`/user/confirm-password?lang=${lang}`);
        assert.equal(page.statusCode, 200);
        assert.ok(page.body.includes(`<h1>${title}</h1>`), lang);
        assert.match(page.body, new RegExp(`<html lang="${lang}">`));
      }
      const wrong = await browser.postJson('/user/confirm-password?lang=de', { password: 'falsch falsch' });
      assert.equal(wrong.json().message, 'Das angegebene Passwort war falsch.');
    });
  },
  { env: { PASSWORD_TIMEOUT: '10' }, overrides: { clock }, build: { plugins: [probes] } },
);
