import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

/**
 * docs/security.md, docs/reference/errors.md: a form the per-IP budget (429) or a full hash queue (503)
 * refuses comes back as itself, saying once, in its own words, what happened — with what was typed
 * (never a password), so trying again is one click. JSON answers keep docs/reference/errors.md's texts.
 * (The 503 form: test/security/hash-queue.test.ts.)
 */
const SECRET = 'orchid-lantern-harbour-9';
let ips = 0;
const nextIp = () => `198.51.100.${++ips}`;

const count = (body: string, text: string | RegExp) =>
  body.split(typeof text === 'string' ? text : new RegExp(text.source, 'g')).length - 1;

/** A browser at its own address that has spent the whole budget (IP_AUTH_LIMIT=1) on one refused login. */
async function spentBrowser(app: TestApp, page: string) {
  const browser = new Browser(app.app, { 'x-forwarded-for': nextIp() });
  await browser.get('/login');
  await browser.post('/login', { email: 'nobody@example.com', password: 'wrong-password' });
  await browser.get(page);
  return browser;
}

function assertRefusedForm(
  response: { statusCode: number; body: string; headers: Record<string, unknown> },
  words: RegExp,
  action: string,
  kept: string[],
) {
  assert.equal(response.statusCode, 429, response.body);
  assert.ok(Number(response.headers['retry-after']) >= 1);
  assert.match(response.headers['content-type'] as string, /text\/html/);
  assert.equal(count(response.body, words), 1, `said once: ${words}`);
  assert.ok(response.body.includes(`action="${action}"`), 'the form again: trying again is one click');
  for (const value of kept) assert.ok(response.body.includes(`value="${value}"`), `kept: ${value}`);
  assert.ok(!response.body.includes(SECRET), 'no password comes back');
  assert.doesNotMatch(response.body, /too many requests in a short time/i, 'not a second, generic text');
}

await describeApp(
  'forms refused by the per-IP budget',
  (ctx) => {
    test('register, forgot-password, reset-password, login: the form again, its own words once, input kept', async () => {
      const app = ctx();
      const register = await spentBrowser(app, '/register');
      const signUp = await register.post('/register', {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        password: SECRET,
        password_confirmation: SECRET,
      });
      assertRefusedForm(
        signUp,
        /Too many sign-up attempts\. Please try again in \d+ seconds\./,
        '/register',
        ['Ada Lovelace', 'ada@example.com'],
      );
      assert.doesNotMatch(signUp.body, /login attempts/);

      const forgot = await spentBrowser(app, '/forgot-password');
      const request = await forgot.post('/forgot-password', { email: 'ada@example.com' });
      assertRefusedForm(
        request,
        /Too many password reset requests\. Please try again in \d+ seconds\./,
        '/forgot-password',
        ['ada@example.com'],
      );
      assert.doesNotMatch(request.body, /login attempts/);

      const token = 'a'.repeat(43);
      const reset = await spentBrowser(app, `/reset-password/${token}?email=ada%40example.com`);
      const set = await reset.post('/reset-password', {
        token,
        email: 'ada@example.com',
        password: SECRET,
        password_confirmation: SECRET,
      });
      assertRefusedForm(
        set,
        /Too many tries to set a new password\. Please try again in \d+ seconds\./,
        '/reset-password',
        ['ada@example.com', token],
      );
      assert.equal(set.headers['referrer-policy'], 'no-referrer', 'the token is on the page');

      const login = await spentBrowser(app, '/login');
      const again = await login.post('/login', { email: 'ada@example.com', password: SECRET });
      assertRefusedForm(again, /Too many login attempts\. Please try again in \d+ seconds\./, '/login', [
        'ada@example.com',
      ]);
    });

    test('the password confirmation: its own words, no password back', async () => {
      const app = ctx();
      const user = await app.createUser();
      // The login spends this address's whole budget (IP_AUTH_LIMIT=1); the confirmation is refused.
      const browser = new Browser(app.app, { 'x-forwarded-for': nextIp() });
      await browser.get('/login');
      assert.equal(
        (await browser.post('/login', { email: user.email, password: user.password })).statusCode,
        302,
      );
      await browser.get('/user/confirm-password');
      const refused = await browser.post('/user/confirm-password', { password: SECRET });
      assertRefusedForm(
        refused,
        /Too many password confirmations\. Please try again in \d+ seconds\./,
        '/user/confirm-password',
        [],
      );
      assert.doesNotMatch(refused.body, /login attempts/);
    });

    test('a page that was only read: the 429 page says it once and offers "Try again" (the same address)', async () => {
      const app = ctx();
      const browser = new Browser(app.app, { 'x-forwarded-for': nextIp() });
      await browser.get('/passkeys/login/options', { accept: 'text/html' });
      const refused = await browser.get('/passkeys/login/options', { accept: 'text/html' });
      assert.equal(refused.statusCode, 429);
      assert.equal(count(refused.body, /Please wait \d+ seconds? and try again\./), 1);
      assert.doesNotMatch(refused.body, /Too Many Attempts/);
      assert.match(refused.body, /<a class="button" href="\/passkeys\/login\/options">Try again<\/a>/);
    });

    test('in the page language; JSON clients keep "Too Many Attempts."', async () => {
      const app = ctx();
      const browser = await spentBrowser(app, '/forgot-password?lang=de');
      const refused = await browser.post('/forgot-password?lang=de', { email: 'ada@example.com' });
      assert.equal(refused.statusCode, 429);
      assert.equal(count(refused.body, /Zu viele Anfragen zum Zurücksetzen des Passworts\./), 1);
      for (const lang of ['fr', 'es']) {
        const other = await browser.post(`/forgot-password?lang=${lang}`, { email: 'ada@example.com' });
        assert.match(
          other.body,
          lang === 'fr' ? /Trop de demandes de réinitialisation/ : /Demasiadas solicitudes/,
        );
      }
      const json = await browser.postJson('/forgot-password?lang=en', { email: 'ada@example.com' });
      assert.equal(json.statusCode, 429);
      assert.deepEqual(json.json(), { message: 'Too Many Attempts.' });
    });
  },
  { env: { IP_AUTH_LIMIT: '1', TRUST_PROXY: '127.0.0.1' } },
);
