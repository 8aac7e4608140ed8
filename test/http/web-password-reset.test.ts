import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { countRows, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { extractLinks, startSmtpSink } from '../helpers/smtp-sink.ts';

const sink = await startSmtpSink();
after(() => sink.close());
const clock = fakeClock(Date.UTC(2026, 7, 1, 9));
const MINUTE = 60_000;
const NEW_PASSWORD = 'violet-harbour-lantern-7';
const json = { accept: 'application/json' };

function ready(ctx: TestApp): TestApp {
  ctx.services.outbox.start();
  return ctx;
}

/** Asks for a reset link in a fresh browser and returns the mailed link (and the mail). */
async function mailedResetLink(app: TestApp, email: string, headers: Record<string, string> = {}) {
  clock.advance(2 * MINUTE); // past the one-mail-a-minute throttle of earlier requests
  const browser = new Browser(app.app, headers);
  await browser.get('/forgot-password');
  const before = sink.mails.length;
  const response = await browser.post('/forgot-password', { email });
  assert.equal(response.statusCode, 302);
  const mail = await sink.waitForMail(
    (m) => sink.mails.indexOf(m) >= before && m.envelope.to[0] === email && /reset-password/.test(m.text),
  );
  const link = extractLinks(mail).find((l) => l.includes('/reset-password/'))!;
  return { link, mail, token: new URL(link).pathname.split('/').pop()! };
}

const mailsTo = (email: string, kind: RegExp) =>
  sink.mails.filter((m) => m.envelope.to[0] === email && kind.test(m.subject));

await describeApp(
  'web password reset',
  (ctx) => {
    test('known and unknown addresses get byte-identical answers; only the known one gets mail', async (t) => {
      const app = ready(ctx());
      const user = await app.createUser();
      clock.advance(2 * MINUTE);
      const post = (email: string, headers: Record<string, string>) =>
        app.app.inject({
          method: 'POST',
          url: '/forgot-password',
          payload: { email },
          headers: { ...headers },
        });
      // JSON clients: CSRF by header from a session that has one.
      const browser = new Browser(app.app);
      await browser.get('/forgot-password');
      const headers = { ...json, cookie: browser.cookieHeader(), 'x-csrf-token': browser.csrf! };
      const known = await post(user.email, headers);
      const unknown = await post('nobody-here@example.com', headers);
      assert.equal(known.statusCode, 200);
      assert.equal(known.body, unknown.body);
      assert.deepEqual(known.json(), { message: 'We have emailed your password reset link.' });

      const pageKnown = await browser.post('/forgot-password', { email: user.email });
      const pageUnknown = await browser.post('/forgot-password', { email: 'nobody-here@example.com' });
      for (const r of [pageKnown, pageUnknown]) {
        assert.equal(r.statusCode, 302);
        assert.equal(r.headers.location, '/forgot-password');
      }
      assert.equal(pageKnown.body, pageUnknown.body);
      const shown = await browser.get('/forgot-password');
      assert.match(shown.body, /We have emailed your password reset link\./);

      await sink.waitForMail((m) => m.envelope.to[0] === user.email);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(mailsTo(user.email, /Reset Password/).length, 1, 'one mail a minute per address');
      assert.equal(sink.mails.filter((m) => m.envelope.to[0] === 'nobody-here@example.com').length, 0);

      // Timing: the known-address work starts after the answer is sent, so neither path waits on it.
      const time = async (email: string) => {
        const started = performance.now();
        await post(email, headers);
        const elapsed = performance.now() - started;
        // Let the work a known address starts after its answer finish, so it is not counted against
        // the next request measured.
        await new Promise((resolve) => setTimeout(resolve, 100));
        return elapsed;
      };
      const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const knownTimes: number[] = [];
      const unknownTimes: number[] = [];
      for (let i = 0; i < 11; i++) {
        clock.advance(2 * MINUTE);
        knownTimes.push(await time(user.email));
        unknownTimes.push(await time(`nobody${i}@example.com`));
      }
      t.diagnostic(
        `median ms: known ${median(knownTimes).toFixed(2)}, unknown ${median(unknownTimes).toFixed(2)}`,
      );
      // Generous bound: the machine may be busy; the work itself (a transaction, sealing, rendering a
      // mail) would show as a consistent gap, not noise.
      assert.ok(Math.abs(median(knownTimes) - median(unknownTimes)) < 25, `${knownTimes} vs ${unknownTimes}`);
    });

    test('mailed link → form (no-referrer) → new password → login; notice mail; token single-use', async () => {
      const app = ready(ctx());
      const user = await app.createUser();
      const { link, mail, token } = await mailedResetLink(app, user.email);
      assert.match(link, /^http:\/\/gatehouse\.test\/reset-password\/[A-Za-z0-9_-]{43}\?email=/);
      assert.equal(new URL(link).searchParams.get('email'), user.email);
      assert.match(mail.text, /This password reset link will expire in 60 minutes\./);
      assert.ok(mail.html.includes(`href="${link.replace(/&/g, '&amp;')}"`));

      const browser = new Browser(app.app);
      const form = await browser.get(link.replace('http://gatehouse.test', ''));
      assert.equal(form.statusCode, 200);
      assert.equal(form.headers['referrer-policy'], 'no-referrer');
      assert.match(form.body, new RegExp(`name="token" value="${token}"`));
      assert.match(form.body, new RegExp(`value="${user.email}"`));

      const done = await browser.post('/reset-password', {
        token,
        email: user.email,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(done.statusCode, 302);
      assert.equal(done.headers.location, '/login');
      assert.match((await browser.get('/login')).body, /Your password has been reset\./);
      const login = await browser.post('/login', { email: user.email, password: NEW_PASSWORD });
      assert.equal(login.headers.location, '/dashboard');
      const oldPassword = new Browser(app.app);
      await oldPassword.get('/login');
      assert.equal(
        (await oldPassword.post('/login', { email: user.email, password: user.password })).statusCode,
        422,
      );

      const notice = await sink.waitForMail(
        (m) => m.envelope.to[0] === user.email && /password was changed/.test(m.subject),
      );
      assert.ok(extractLinks(notice).includes('http://gatehouse.test/forgot-password'));

      // Opened again, the spent link says so before anything is typed, and offers a new one.
      const replay = new Browser(app.app);
      const dead = await replay.get(link.replace('http://gatehouse.test', ''));
      assert.equal(dead.statusCode, 200);
      assert.match(dead.body, /<h1>This reset link does not work<\/h1>/);
      assert.ok(dead.body.includes(`href="/forgot-password?email=${encodeURIComponent(user.email)}"`));
      assert.doesNotMatch(dead.body, /name="password"/, 'no form to fill in for nothing');
      await replay.get('/forgot-password');
      const second = await replay.post('/reset-password', {
        token,
        email: user.email,
        password: 'another-fine-passphrase',
        password_confirmation: 'another-fine-passphrase',
      });
      assert.equal(second.statusCode, 422);
      assert.match(second.body, /This password reset token is invalid\./);

      for (const line of app.logs) assert.ok(!line.includes(token), 'reset token never logged');
    });

    test('a reset revokes sessions, remember-me cookies and API tokens of the user', async () => {
      const app = ready(ctx());
      const user = await app.createUser();
      const apiToken = await app.issueToken(user.email, user.password);
      const victim = new Browser(app.app);
      await victim.get('/login');
      await victim.post('/login', { email: user.email, password: user.password, remember: '1' });
      assert.equal((await victim.get('/dashboard')).statusCode, 200);
      const sessionCookie = victim.cookies.get('gatehouse_session')!;
      const rememberCookie = victim.cookies.get('gatehouse_remember')!;
      assert.ok(rememberCookie);

      const { token } = await mailedResetLink(app, user.email);
      const resetter = new Browser(app.app);
      await resetter.get(`/reset-password/${token}?email=${encodeURIComponent(user.email)}`);
      const done = await resetter.post('/reset-password', {
        token,
        email: user.email,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      });
      assert.equal(done.statusCode, 302);

      const bySession = await app.app.inject({
        url: '/dashboard',
        cookies: { gatehouse_session: sessionCookie },
      });
      assert.equal(bySession.statusCode, 302);
      assert.equal(bySession.headers.location, '/login');
      const byRemember = await app.app.inject({
        url: '/dashboard',
        cookies: { gatehouse_remember: rememberCookie },
      });
      assert.equal(byRemember.statusCode, 302);
      const api = await app.app.inject({
        url: '/api/user',
        headers: { authorization: `Bearer ${apiToken}` },
      });
      assert.equal(api.statusCode, 401);
    });

    test('20 concurrent submits of one token: exactly one 302, the rest 422', async () => {
      const app = ready(ctx());
      const user = await app.createUser();
      const { token } = await mailedResetLink(app, user.email);
      const browser = new Browser(app.app);
      await browser.get(`/reset-password/${token}?email=${encodeURIComponent(user.email)}`);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          browser.post('/reset-password', {
            token,
            email: user.email,
            password: `${NEW_PASSWORD}-${i}`,
            password_confirmation: `${NEW_PASSWORD}-${i}`,
          }),
        ),
      );
      const codes = responses.map((r) => r.statusCode).sort();
      assert.deepEqual(codes, [302, ...Array(19).fill(422)]);
      const winner = responses.findIndex((r) => r.statusCode === 302);
      const fresh = new Browser(app.app);
      await fresh.get('/login');
      const ok = await fresh.post('/login', { email: user.email, password: `${NEW_PASSWORD}-${winner}` });
      assert.equal(ok.headers.location, '/dashboard');
      const audits = await app.db
        .selectFrom('audit_log')
        .select('id')
        .where('event', '=', 'password.reset')
        .where('subject_id', '=', user.id)
        .execute();
      assert.equal(audits.length, 1);
    });

    test('invalid, expired, wrong-address tokens and bad input: 422 with the field errors, nothing changes', async () => {
      const app = ready(ctx());
      const user = await app.createUser();
      const { token } = await mailedResetLink(app, user.email);
      const browser = new Browser(app.app);
      await browser.get(`/reset-password/${token}?email=${encodeURIComponent(user.email)}`);
      const attempt = (form: Record<string, string>, headers: Record<string, string> = {}) =>
        browser.post(
          '/reset-password',
          { token, email: user.email, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD, ...form },
          headers,
        );
      const password = () =>
        app.db.selectFrom('users').select('password').where('id', '=', user.id).executeTakeFirstOrThrow();
      const before = await password();

      const wrong = await attempt({ token: 'x'.repeat(43) }, json);
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json(), {
        message: 'This password reset token is invalid.',
        errors: { email: ['This password reset token is invalid.'] },
      });
      assert.equal((await attempt({ email: 'someone-else@example.com' })).statusCode, 422);
      const short = await attempt({ password: 'short', password_confirmation: 'short' }, json);
      assert.equal(short.json().errors.password[0], 'The password field must be at least 8 characters.');
      const common = await attempt({ password: 'password123', password_confirmation: 'password123' }, json);
      assert.equal(common.statusCode, 422);
      assert.ok(common.json().errors.password);
      const mismatch = await attempt({ password_confirmation: 'something-else-entirely' });
      assert.equal(mismatch.statusCode, 422);
      assert.match(mismatch.body, /The password field confirmation does not match\./);
      assert.match(mismatch.body, new RegExp(`name="token" value="${token}"`), 'token kept in the form');
      assert.doesNotMatch(mismatch.body, new RegExp(NEW_PASSWORD));
      const garbage = await browser.post('/reset-password', { token: 'a\r\nb', email: 'not-an-email' }, json);
      assert.equal(garbage.statusCode, 422);
      const noCsrf = await browser.post(
        '/reset-password',
        { _token: 'nope', token, email: user.email },
        json,
      );
      assert.equal(noCsrf.statusCode, 419);

      clock.advance(61 * MINUTE);
      const expired = await attempt({}, json);
      assert.equal(expired.statusCode, 422);
      assert.deepEqual(await password(), before, 'nothing changed');
      assert.ok((await countRows(app.db, 'password_reset_tokens')) >= 1, 'the token was not spent');
    });

    test('forgot-password: bad input is a 422 with the field error, no CSRF is a 419; forged hosts never reach links', async () => {
      const app = ready(ctx());
      const browser = new Browser(app.app);
      await browser.get('/forgot-password');
      const invalid = await browser.post('/forgot-password', { email: 'not-an-address' });
      assert.equal(invalid.statusCode, 422);
      assert.match(invalid.body, /The email field must be a valid email address\./);
      assert.match(invalid.body, /value="not-an-address"/);
      const missing = await browser.postJson('/forgot-password', {});
      assert.deepEqual(missing.json(), {
        message: 'The email field is required.',
        errors: { email: ['The email field is required.'] },
      });
      const array = await browser.postJson('/forgot-password', { email: ['a@example.com'] });
      assert.equal(array.statusCode, 422);
      assert.equal(
        (await browser.post('/forgot-password', { _token: 'forged', email: 'a@example.com' })).statusCode,
        419,
      );

      const user = await app.createUser();
      const { link } = await mailedResetLink(app, user.email, {
        host: 'evil.example',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
      });
      assert.ok(link.startsWith('http://gatehouse.test/reset-password/'), link);
    });

    test('the reset mail is in the language of the request, in each of en/de/fr/es', async () => {
      const app = ready(ctx());
      const subjects: Record<string, string> = {
        en: 'Reset Password Notification',
        de: 'Benachrichtigung zum Zurücksetzen des Passworts',
        fr: 'Notification de réinitialisation du mot de passe',
        es: 'Notificación de restablecimiento de contraseña',
      };
      for (const [locale, subject] of Object.entries(subjects)) {
        const user = await app.createUser({ locale: 'en' });
        const { mail } = await mailedResetLink(app, user.email, {
          'accept-language': `${locale}-XX,${locale};q=0.9`,
        });
        assert.equal(mail.subject, subject);
        assert.ok(mail.html.includes(`<html lang="${locale}">`));
        assert.ok(mail.text.length > 100 && mail.html.length > 500);
      }
      const page = await new Browser(app.app).get('/forgot-password?lang=de');
      assert.match(page.body, /Passwort vergessen\?/);
    });
  },
  { env: sink.env, overrides: { clock } },
);
