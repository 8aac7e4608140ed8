import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { hmacSha256Hex, sha1Hex } from '../../src/lib/crypto.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { extractLinks, startSmtpSink } from '../helpers/smtp-sink.ts';

const sink = await startSmtpSink();
after(() => sink.close());
const clock = fakeClock(Date.UTC(2026, 8, 1, 9));
const MINUTE = 60_000;
const PASSWORD = 'copper-meadow-signal-9';
const json = { accept: 'application/json' };
let counter = 0;

/** Registers through POST /register and returns the logged-in browser and the mailed link. */
async function register(app: TestApp, lang = 'en') {
  app.services.outbox.start();
  const email = `reader${++counter}-${Date.now()}@example.com`;
  const browser = new Browser(app.app);
  await browser.get(`/register?lang=${lang}`);
  const response = await browser.post('/register', {
    name: `Reader ${counter}`,
    email,
    password: PASSWORD,
    password_confirmation: PASSWORD,
  });
  assert.equal(response.statusCode, 302, response.body);
  const mail = await sink.waitForMail((m) => m.envelope.to[0] === email);
  const link = extractLinks(mail).find((l) => l.includes('/email/verify/'))!;
  const path = link.replace('http://gatehouse.test', '');
  return { browser, email, mail, link, path };
}

const userId = async (app: TestApp, email: string) =>
  (await app.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;

await describeApp(
  'web e-mail verification',
  (ctx) => {
    test('registration mails a signed link; opening it verifies and /profile opens', async () => {
      const app = ctx();
      const { browser, email, mail, link, path } = await register(app);
      const id = await userId(app, email);
      const expires = Math.floor(clock.now() / 1000) + 60 * 60;
      const unsigned = `http://gatehouse.test/email/verify/${id}/${sha1Hex(email)}?expires=${expires}`;
      assert.equal(link, `${unsigned}&signature=${hmacSha256Hex(app.config.appKey, unsigned)}`);
      assert.equal(mail.subject, 'Verify Email Address');
      assert.ok(mail.html.includes(link.replace(/&/g, '&amp;')));

      const profile = await browser.get('/profile');
      assert.equal(profile.statusCode, 302);
      assert.equal(profile.headers.location, '/email/verify');
      const verified = await browser.get(path);
      assert.equal(verified.statusCode, 302);
      assert.equal(verified.headers.location, '/dashboard?verified=1');
      assert.equal((await browser.get('/profile')).statusCode, 200);
      const again = await browser.get(path);
      assert.equal(again.headers.location, '/dashboard?verified=1', 'a second click is harmless');
      const audits = await app.db
        .selectFrom('audit_log')
        .select('id')
        .where('event', '=', 'email.verified')
        .where('subject_id', '=', id)
        .execute();
      assert.equal(audits.length, 1);
      for (const line of app.logs)
        assert.ok(!line.includes(link.split('signature=')[1]!), 'signature never logged');
    });

    test('a guest opening the link logs in first and comes back to it', async () => {
      const app = ctx();
      const { email, path } = await register(app);
      const guest = new Browser(app.app);
      const bounced = await guest.get(path);
      assert.equal(bounced.statusCode, 302);
      assert.equal(bounced.headers.location, '/login');
      await guest.get('/login');
      const login = await guest.post('/login', { email, password: PASSWORD });
      assert.equal(login.headers.location, path);
      const verified = await guest.get(path);
      assert.equal(verified.headers.location, '/dashboard?verified=1');
      const dashboard = await guest.get('/dashboard?verified=1');
      assert.match(dashboard.body, /Your email address has been verified\./);
    });

    test("tampered, expired and other users' links are 403 and change nothing", async () => {
      const app = ctx();
      const first = await register(app);
      const second = await register(app);
      const tampered = first.path.replace(
        /signature=([0-9a-f])/,
        (_m, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`,
      );
      const longer = first.path.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 3600}`);
      for (const path of [
        tampered,
        longer,
        first.path.replace(/&signature=.*/, ''),
        first.path.replace(/\/\d+\//, '/999999/'),
      ]) {
        const response = await first.browser.get(path);
        assert.equal(response.statusCode, 403, path);
      }
      const json403 = await first.browser.get(tampered, json);
      assert.deepEqual(json403.json(), { message: 'Invalid signature.' });
      const foreign = await first.browser.get(second.path, json);
      assert.equal(foreign.statusCode, 403);
      assert.deepEqual(foreign.json(), { message: 'This action is unauthorized.' });

      // A person reads what happened and gets the way on, never Laravel's "Invalid signature.".
      const page = await first.browser.get(tampered);
      assert.match(page.body, /<h1>This verification link does not work<\/h1>/);
      assert.match(page.body, /valid for 60 minutes/);
      assert.match(page.body, /action="\/email\/verification-notification"/, 'a button sends a new link');
      assert.doesNotMatch(page.body, /Invalid signature/);
      const foreignPage = await first.browser.get(second.path);
      assert.match(foreignPage.body, /<h1>This link is for another account<\/h1>/);
      assert.match(foreignPage.body, /<form method="post" action="\/logout">/, 'log out is offered');

      clock.advance(61 * MINUTE);
      const expired = await first.browser.get(first.path);
      assert.equal(expired.statusCode, 403);
      const rows = await app.db
        .selectFrom('users')
        .select('email_verified_at')
        .where('email', 'in', [first.email, second.email])
        .execute();
      assert.deepEqual(
        rows.map((r) => r.email_verified_at),
        [null, null],
      );
    });

    test('notice page and resend (6 a minute); JSON variants', async () => {
      const app = ctx();
      const { browser, email } = await register(app, 'de');
      const notice = await browser.get('/email/verify');
      assert.equal(notice.statusCode, 200);
      assert.match(notice.body, /action="\/email\/verification-notification"/);
      assert.match(notice.body, /Bestätigungs-E-Mail erneut senden/);
      assert.ok(notice.body.includes(email.split('@')[0]!), 'says where the link went');
      assert.match(notice.body, /bis zu 6 neue Links pro Minute/, 'the limit is known before it is hit');
      assert.match(notice.body, /action="\/logout"/, 'a way out');
      const before = sink.mails.filter((m) => m.envelope.to[0] === email).length;
      const resent = await browser.post('/email/verification-notification');
      assert.equal(resent.statusCode, 302);
      assert.equal(resent.headers.location, '/email/verify');
      assert.match((await browser.get('/email/verify')).body, /Ein neuer Bestätigungslink wurde/);
      // The locale cookie set by ?lang=de outranks Accept-Language (docs/guides/languages.md).
      const viaJson = await browser.post(
        '/email/verification-notification',
        {},
        { ...json, 'accept-language': 'en' },
      );
      assert.equal(viaJson.statusCode, 200);
      assert.deepEqual(viaJson.json(), {
        message:
          'Ein neuer Bestätigungslink wurde an die E-Mail-Adresse gesendet, die Sie bei der Registrierung angegeben haben.',
      });
      await sink.waitForMails(before + 2, (m) => m.envelope.to[0] === email);
      const resentMail = sink.mails.filter((m) => m.envelope.to[0] === email)[before]!;
      assert.equal(resentMail.subject, 'E-Mail-Adresse bestätigen', 'in the language of the page that asked');
      for (let i = 0; i < 4; i++)
        assert.equal((await browser.post('/email/verification-notification')).statusCode, 302);
      const limited = await browser.post('/email/verification-notification', {}, json);
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) > 0);
      // A person pressing the button again gets the notice page, saying when it works again.
      const limitedPage = await browser.post('/email/verification-notification');
      assert.equal(limitedPage.statusCode, 429);
      assert.match(limitedPage.body, /Sie können in \d+ Sekunden eine weitere anfordern/);
      assert.match(limitedPage.body, /action="\/email\/verification-notification"/);
      const noticeWhileLimited = await browser.get('/email/verify');
      assert.equal(noticeWhileLimited.statusCode, 200);
      assert.match(noticeWhileLimited.body, /Sie können in \d+ Sekunden eine weitere anfordern/);
      assert.equal(
        (await browser.post('/email/verification-notification', { _token: 'bad' })).statusCode,
        419,
      );

      const guest = await app.app.inject({
        method: 'POST',
        url: '/email/verification-notification',
        headers: json,
      });
      assert.equal(guest.statusCode, 419);
      const guestNotice = await app.app.inject({ url: '/email/verify' });
      assert.equal(guestNotice.headers.location, '/login');
    });

    test("the verification mail follows the registering request's language", async () => {
      const app = ctx();
      const subjects = {
        en: 'Verify Email Address',
        de: 'E-Mail-Adresse bestätigen',
        fr: "Vérification de l'adresse e-mail",
        es: 'Verificar dirección de correo electrónico',
      };
      for (const [lang, subject] of Object.entries(subjects)) {
        const { mail } = await register(app, lang);
        assert.equal(mail.subject, subject);
        assert.ok(mail.text.includes('60'));
      }
    });
  },
  { env: sink.env, overrides: { clock } },
);
