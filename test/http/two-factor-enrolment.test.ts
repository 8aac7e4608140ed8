import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { codeAt } from '../../src/two-factor/totp.ts';
import { countRows, describeApp, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { midStep } from '../helpers/two-factor.ts';

const clock = fakeClock(midStep());
const CODE_INVALID = 'The provided two factor authentication code was invalid.';
const RECOVERY = /^[a-z0-9]{10}-[a-z0-9]{10}$/;

async function signedIn(ctx: TestApp) {
  const user = await ctx.createUser();
  const browser = new Browser(ctx.app);
  await browser.get('/login');
  assert.equal(
    (await browser.post('/login', { email: user.email, password: user.password })).statusCode,
    302,
  );
  await browser.get('/dashboard');
  return { user, browser };
}

async function confirmPassword(browser: Browser, password: string) {
  assert.equal((await browser.postJson('/user/confirm-password', { password })).statusCode, 204);
}

function del(browser: Browser, url: string) {
  return browser.app.inject({
    method: 'DELETE',
    url,
    headers: {
      accept: 'application/json',
      cookie: browser.cookieHeader(),
      'x-csrf-token': browser.csrf ?? '',
    },
  });
}

async function events(ctx: TestApp, userId: number) {
  const rows = await ctx.db
    .selectFrom('audit_log')
    .select('event')
    .where('subject_id', '=', userId)
    .execute();
  return rows.map((r) => r.event);
}

await describeApp(
  'two-factor enrolment (docs/guides/two-factor.md)',
  (ctx) => {
    test('every management route needs a password confirmation (JSON 423, browsers to the form)', async () => {
      const { browser } = await signedIn(ctx());
      for (const url of [
        '/user/two-factor-qr-code',
        '/user/two-factor-secret-key',
        '/user/two-factor-recovery-codes',
      ]) {
        const answer = await browser.get(url, { accept: 'application/json' });
        assert.equal(answer.statusCode, 423, url);
        assert.deepEqual(answer.json(), { message: 'Password confirmation required.' });
      }
      for (const url of [
        '/user/two-factor-authentication',
        '/user/confirmed-two-factor-authentication',
        '/user/two-factor-recovery-codes',
      ]) {
        assert.equal((await browser.postJson(url, { code: '123456' })).statusCode, 423, url);
      }
      assert.equal((await del(browser, '/user/two-factor-authentication')).statusCode, 423);
      const page = await browser.get('/user/two-factor');
      assert.equal(page.statusCode, 302);
      assert.equal(page.headers.location, '/user/confirm-password');
      const guest = await new Browser(ctx().app).get('/user/two-factor-secret-key', {
        accept: 'application/json',
      });
      assert.equal(guest.statusCode, 401);
    });

    test('enrol: secret, QR code, 8 codes; active only after a correct code; mails and audit rows', async () => {
      const { user, browser } = await signedIn(ctx());
      await confirmPassword(browser, user.password);
      const missing = await browser.get('/user/two-factor-secret-key', { accept: 'application/json' });
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { message: 'Two factor authentication has not been set up.' });

      assert.equal((await browser.postJson('/user/two-factor-authentication')).statusCode, 204);
      const { secretKey } = (
        await browser.get('/user/two-factor-secret-key', { accept: 'application/json' })
      ).json();
      assert.match(secretKey, /^[A-Z2-7]{32}$/, '160 bits in base32');
      const qr = (await browser.get('/user/two-factor-qr-code', { accept: 'application/json' })).json();
      assert.match(qr.svg, /^<svg[\s\S]*<\/svg>\s*$/);
      assert.equal(
        qr.url,
        `otpauth://totp/Gatehouse:${encodeURIComponent(user.email)}?secret=${secretKey}&issuer=Gatehouse&algorithm=SHA1&digits=6&period=30`,
      );
      const codes = (
        await browser.get('/user/two-factor-recovery-codes', { accept: 'application/json' })
      ).json();
      assert.equal(codes.length, 8);
      for (const code of codes) assert.match(code, RECOVERY);

      // Not active yet: a login is not challenged (Fortify #201: active before confirmation).
      const other = new Browser(ctx().app);
      await other.get('/login');
      assert.equal(
        (await other.post('/login', { email: user.email, password: user.password })).headers.location,
        '/dashboard',
      );

      // Secret and codes are sealed at rest: neither appears in the row.
      const row = await ctx()
        .db.selectFrom('two_factor_credentials')
        .selectAll()
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.ok(!row.secret.includes(secretKey) && !row.recovery_codes.includes(codes[0]));

      const mails = await countRows(ctx().db, 'mail_outbox');
      const wrong = await browser.postJson('/user/confirmed-two-factor-authentication', {
        code: codeAt(secretKey, clock.now() + 90_000),
      });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json(), { message: CODE_INVALID, errors: { code: [CODE_INVALID] } });
      const empty = await browser.postJson('/user/confirmed-two-factor-authentication', {});
      assert.equal(empty.statusCode, 422);
      assert.equal((await ctx().services.auth.twoFactor.state(user.id)).status, 'enrolling');
      const ok = await browser.postJson('/user/confirmed-two-factor-authentication', {
        code: codeAt(secretKey, clock.now()),
      });
      assert.equal(ok.statusCode, 204);
      assert.equal((await ctx().services.auth.twoFactor.state(user.id)).status, 'on');
      assert.equal(await countRows(ctx().db, 'mail_outbox'), mails + 1, 'the owner is told');
      assert.ok((await events(ctx(), user.id)).includes('two_factor.enabled'));

      // Starting again does not replace a working secret.
      assert.equal((await browser.postJson('/user/two-factor-authentication')).statusCode, 204);
      const again = (await browser.get('/user/two-factor-secret-key', { accept: 'application/json' })).json();
      assert.equal(again.secretKey, secretKey);

      // Now a login is challenged.
      const third = new Browser(ctx().app);
      await third.get('/login');
      assert.equal(
        (await third.post('/login', { email: user.email, password: user.password })).headers.location,
        '/two-factor-challenge',
      );
    });

    test('recovery codes regenerate (old ones stop working); turning off deletes everything, with a mail', async () => {
      const { user, browser } = await signedIn(ctx());
      await confirmPassword(browser, user.password);
      await browser.postJson('/user/two-factor-authentication');
      const { secretKey } = (
        await browser.get('/user/two-factor-secret-key', { accept: 'application/json' })
      ).json();
      await browser.postJson('/user/confirmed-two-factor-authentication', {
        code: codeAt(secretKey, clock.now()),
      });
      const before = (
        await browser.get('/user/two-factor-recovery-codes', { accept: 'application/json' })
      ).json();
      assert.equal((await browser.postJson('/user/two-factor-recovery-codes')).statusCode, 204);
      const after = (
        await browser.get('/user/two-factor-recovery-codes', { accept: 'application/json' })
      ).json();
      assert.equal(after.length, 8);
      assert.equal(after.filter((c: string) => before.includes(c)).length, 0);
      const full = (await ctx().services.auth.providerOf('web').retrieveById(user.id))!;
      const audit = { ip: null, now: clock.now() };
      assert.equal(
        await ctx().services.auth.twoFactor.verify(full, { recoveryCode: before[0] }, audit),
        false,
      );
      assert.equal(await ctx().services.auth.twoFactor.verify(full, { recoveryCode: after[0] }, audit), true);
      assert.equal(
        (await browser.get('/user/two-factor-recovery-codes', { accept: 'application/json' })).json().length,
        7,
      );

      const mails = await countRows(ctx().db, 'mail_outbox');
      assert.equal((await del(browser, '/user/two-factor-authentication')).statusCode, 204);
      assert.equal(await countRows(ctx().db, 'mail_outbox'), mails + 1);
      assert.deepEqual(await ctx().services.auth.twoFactor.state(user.id), {
        status: 'off',
        recoveryCodesLeft: 0,
      });
      assert.ok((await events(ctx(), user.id)).includes('two_factor.disabled'));
      assert.equal(
        (await browser.get('/user/two-factor-qr-code', { accept: 'application/json' })).statusCode,
        404,
      );
      assert.equal((await browser.postJson('/user/two-factor-recovery-codes')).statusCode, 404);
    });

    test('pages without JavaScript: the account section, setup, wrong code shown again, manage', async () => {
      const { user, browser } = await signedIn(ctx());
      const profile = await browser.get('/profile');
      assert.match(profile.body, /id="two-factor"/);
      assert.match(profile.body, /href="\/user\/two-factor"/);
      await browser.get('/user/confirm-password');
      await browser.post('/user/confirm-password', { password: user.password });
      const off = await browser.get('/user/two-factor');
      assert.equal(off.statusCode, 200);
      const started = await browser.post('/user/two-factor-authentication', {});
      assert.equal(started.statusCode, 302);
      assert.equal(started.headers.location, '/user/two-factor');
      const setup = await browser.get('/user/two-factor');
      assert.match(setup.body, /<svg/);
      assert.match(setup.body, /autocomplete="one-time-code"/);
      assert.match(setup.body, /download="gatehouse-recovery-codes.txt"/);
      const secret = /id="secret-key">([A-Z2-7 ]+)</.exec(setup.body)![1]!.replace(/ /g, '');
      const wrong = await browser.post('/user/confirmed-two-factor-authentication', { code: '12345x' });
      assert.equal(wrong.statusCode, 422);
      assert.ok(wrong.body.includes(CODE_INVALID));
      const ok = await browser.post('/user/confirmed-two-factor-authentication', {
        code: codeAt(secret, clock.now()),
      });
      assert.equal(ok.statusCode, 302);
      const manage = await browser.get('/user/two-factor');
      assert.match(manage.body, /8 recovery codes left\./);
      const profileOn = await browser.get('/profile?lang=de');
      assert.match(profileOn.body, /Noch 8 Wiederherstellungscodes\./);
      const off2 = await browser.post('/user/two-factor-authentication', { _method: 'DELETE' });
      assert.equal(off2.statusCode, 302);
      assert.equal(off2.headers.location, '/profile');
      assert.equal((await ctx().services.auth.twoFactor.state(user.id)).status, 'off');
    });

    test('the setup page: the QR code first and nothing focused below it; its form asks for "I have saved my recovery codes" with the code, in one pass', async () => {
      const { user, browser } = await signedIn(ctx());
      await confirmPassword(browser, user.password);
      await browser.get('/user/two-factor');
      await browser.post('/user/two-factor-authentication', {});
      const setup = await browser.get('/user/two-factor');
      assert.ok(
        setup.body.indexOf('<svg') < setup.body.indexOf('id="recovery-codes"'),
        'the QR code comes first',
      );
      assert.ok(
        setup.body.indexOf('id="recovery-codes"') < setup.body.indexOf('name="code"'),
        'then the codes',
      );
      assert.doesNotMatch(setup.body, /autofocus/, 'no field pulls the page past its QR code');
      assert.match(
        setup.body,
        /<a class="button secondary small" href="otpauth:\/\/totp\/Gatehouse:[^"]+secret=[A-Z2-7]{32}&amp;issuer=Gatehouse[^"]*">Open in authenticator app<\/a>/,
      );
      const secret = /id="secret-key">([A-Z2-7 ]+)</.exec(setup.body)![1]!.replace(/ /g, '');
      assert.match(setup.body, new RegExp(`data-copy="secret-key" data-copy-text="${secret}"`));
      assert.match(setup.body, /aria-current="page">Security</, 'inside the account area, under Security');

      const both = await browser.post('/user/confirmed-two-factor-authentication', {
        setup_form: '1',
        code: '',
      });
      assert.equal(both.statusCode, 422);
      assert.match(both.body, /<title>2 errors: /);
      assert.match(both.body, /id="saved-codes-error">Save your recovery codes first, then tick this box/);
      assert.match(both.body, /id="field-code-error">The code field is required\./);
      assert.match(
        both.body,
        /name="saved_codes" value="1" aria-invalid="true" aria-describedby="saved-codes-error" autofocus/,
      );
      const unticked = await browser.post('/user/confirmed-two-factor-authentication', {
        setup_form: '1',
        code: codeAt(secret, clock.now()),
      });
      assert.equal(unticked.statusCode, 422, 'a right code alone does not turn it on from the page');
      assert.equal((await ctx().services.auth.twoFactor.state(user.id)).status, 'enrolling');
      const ticked = await browser.post('/user/confirmed-two-factor-authentication', {
        setup_form: '1',
        saved_codes: '1',
        code: codeAt(secret, clock.now()),
      });
      assert.equal(ticked.statusCode, 302);
      assert.equal((await ctx().services.auth.twoFactor.state(user.id)).status, 'on');
    });
  },
  { overrides: { clock }, env: { IP_AUTH_LIMIT: '0' } },
);
