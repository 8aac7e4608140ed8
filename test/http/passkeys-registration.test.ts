import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../../src/lib/clock.ts';
import { auditEvents, sendJson, signedInBrowser } from '../helpers/account.ts';
import { countRows, describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { SoftwareAuthenticator } from '../helpers/passkey-authenticator.ts';
import {
  confirmedBrowser,
  enrolPasskey,
  passkeyCount,
  registrationResponse,
  TEST_ORIGIN,
} from '../helpers/passkeys.ts';
import { enableTwoFactor } from '../helpers/two-factor.ts';

const clock = fakeClock(Date.UTC(2026, 10, 27, 9));
const FAILED = 'The passkey could not be verified. Please try again.';

await describeApp(
  'passkeys: registration (docs/guides/passkeys.md)',
  (ctx) => {
    test('options: WebAuthn JSON for APP_URL, a discoverable credential, UV preferred, own passkeys excluded', async () => {
      const { user, browser } = await confirmedBrowser(ctx());
      const first = await browser.get('/user/passkeys/options', { accept: 'application/json' });
      assert.equal(first.statusCode, 200);
      const options = first.json();
      assert.match(options.challenge, /^[A-Za-z0-9_-]{43}$/, '256 bits, base64url');
      assert.deepEqual(options.rp, { name: 'Gatehouse', id: 'gatehouse.test' });
      assert.equal(options.user.name, user.email);
      assert.equal(options.user.displayName, user.name);
      // The user handle: 32 opaque bytes (no e-mail or id an authenticator would show or sync).
      assert.equal(Buffer.from(options.user.id, 'base64url').length, 32);
      assert.ok(!Buffer.from(options.user.id, 'base64url').toString('latin1').includes(user.email));
      assert.equal(options.authenticatorSelection.residentKey, 'required');
      assert.equal(options.authenticatorSelection.userVerification, 'preferred');
      assert.equal(options.attestation, 'none');
      assert.equal(options.timeout, 300_000);
      assert.deepEqual(options.excludeCredentials, []);
      assert.ok(
        options.pubKeyCredParams.some((p: { alg: number }) => p.alg === -7),
        'ES256 offered',
      );

      const authenticator = new SoftwareAuthenticator(TEST_ORIGIN);
      await enrolPasskey(browser, authenticator, 'Laptop');
      const again = (await browser.get('/user/passkeys/options', { accept: 'application/json' })).json();
      assert.notEqual(again.challenge, options.challenge);
      assert.equal(again.user.id, options.user.id, 'one stable user handle');
      assert.deepEqual(again.excludeCredentials, [
        {
          id: authenticator.credentials[0]!.id.toString('base64url'),
          type: 'public-key',
          transports: ['internal'],
        },
      ]);
    });

    test('register: 201 {id, name, created_at}; listed; public key only at rest; audited and mailed', async () => {
      const t = ctx();
      const { user, browser } = await confirmedBrowser(t);
      const authenticator = new SoftwareAuthenticator(TEST_ORIGIN);
      const credential = await registrationResponse(browser, authenticator);
      const mails = await countRows(t.db, 'mail_outbox');
      const created = await sendJson(browser, 'POST', '/user/passkeys', { name: 'Phone', credential });
      assert.equal(created.statusCode, 201, created.body);
      const body = created.json();
      assert.deepEqual(Object.keys(body).sort(), ['created_at', 'id', 'name']);
      assert.equal(body.name, 'Phone');
      assert.equal(body.created_at, new Date(clock.now()).toISOString());

      const list = await browser.get('/user/passkeys', { accept: 'application/json' });
      assert.deepEqual(list.json(), [
        { id: body.id, name: 'Phone', created_at: body.created_at, last_used_at: null },
      ]);
      const row = await t.db
        .selectFrom('passkeys')
        .selectAll()
        .where('id', '=', body.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.user_id, user.id);
      assert.equal(row.credential_id, credential.id);
      assert.equal(Number(row.counter), 0);
      assert.deepEqual(JSON.parse(row.transports), ['internal']);
      assert.equal(
        row.public_key,
        Buffer.from(authenticator.credentials[0]!.cosePublicKey).toString('base64url'),
      );
      assert.deepEqual(await auditEvents(t, user.id, 'passkey.'), ['passkey.created']);
      assert.equal(await countRows(t.db, 'mail_outbox'), mails + 1, 'the owner is told');
      // The repository function the data export reads.
      const exported = await t.services.passkeys.list(user.id);
      assert.deepEqual(exported, [
        { id: body.id, name: 'Phone', created_at: clock.now(), last_used_at: null },
      ]);
    });

    test('refused with 422 on credential, nothing stored: replayed, reused challenge, foreign origin or RP id, another session, another user, expired, malformed', async () => {
      const t = ctx();
      const { user, browser } = await confirmedBrowser(t);
      const authenticator = new SoftwareAuthenticator(TEST_ORIGIN);
      const refused = async (credential: unknown, label: string, client = browser) => {
        const before = await passkeyCount(t);
        const answer = await sendJson(client, 'POST', '/user/passkeys', { name: 'X', credential });
        assert.equal(answer.statusCode, 422, `${label}: ${answer.body}`);
        assert.deepEqual(answer.json(), { message: FAILED, errors: { credential: [FAILED] } }, label);
        assert.equal(await passkeyCount(t), before, `${label} stored nothing`);
      };

      const good = await registrationResponse(browser, authenticator);
      assert.equal(
        (await sendJson(browser, 'POST', '/user/passkeys', { name: 'A', credential: good })).statusCode,
        201,
      );
      await refused(good, 'the same response again (its challenge is spent)');
      await refused(
        await registrationResponse(browser, authenticator, { origin: 'https://evil.example' }),
        'origin',
      );
      await refused(
        await registrationResponse(browser, authenticator, { origin: 'http://gatehouse.test:8080' }),
        'origin with another port',
      );
      await refused(await registrationResponse(browser, authenticator, { rpId: 'evil.example' }), 'RP id');
      await refused(await registrationResponse(browser, authenticator, { type: 'webauthn.get' }), 'type');
      await refused(
        await registrationResponse(browser, authenticator, { challenge: 'A'.repeat(43) }),
        'a challenge never issued',
      );

      // A challenge belongs to the browser session (and the user) it was issued to.
      const fromHere = await registrationResponse(browser, authenticator);
      const sameUserElsewhere = await confirmedBrowser(t, user);
      await refused(fromHere, 'another browser of the same user', sameUserElsewhere.browser);
      const otherUser = await confirmedBrowser(t);
      const theirs = await registrationResponse(otherUser.browser, authenticator);
      await refused(theirs, "another user's challenge");

      // Five minutes, then the challenge is dead.
      const late = await registrationResponse(browser, authenticator);
      clock.advance(5 * 60_000 + 1);
      await refused(late, 'expired');

      for (const [label, credential] of [
        ['missing', undefined],
        ['a string', 'not json'],
        ['an array', []],
        ['wrong type', { ...good, type: 'password' }],
        ['rawId differs', { ...good, rawId: 'AAAA' }],
        ['no attestation', { ...good, response: { clientDataJSON: good.response.clientDataJSON } }],
        ['not base64url', { ...good, id: 'a+b/c=', rawId: 'a+b/c=' }],
        ['huge', { ...good, response: { ...good.response, attestationObject: 'A'.repeat(70_000) } }],
      ] as const) {
        await refused(credential, label);
      }
    });

    test('the name: required, one line, at most 255 characters (422 on name)', async () => {
      const { browser } = await confirmedBrowser(ctx());
      const authenticator = new SoftwareAuthenticator(TEST_ORIGIN);
      for (const name of ['', '   ', 'two\nlines', 'x'.repeat(256)]) {
        const credential = await registrationResponse(browser, authenticator);
        const answer = await sendJson(browser, 'POST', '/user/passkeys', { name, credential });
        assert.equal(answer.statusCode, 422, JSON.stringify(name));
        assert.deepEqual(Object.keys(answer.json().errors), ['name']);
      }
    });

    test('enrolment is allowed whatever the two-factor setting (Authelia #13066)', async () => {
      const t = ctx();
      const off = await confirmedBrowser(t);
      await enrolPasskey(off.browser, new SoftwareAuthenticator(TEST_ORIGIN));
      const user = await t.createUser();
      const enrolled = await enableTwoFactor(t, user);
      const browser = new Browser(t.app);
      await browser.get('/login');
      const login = await browser.post('/login', { email: user.email, password: user.password });
      assert.equal(login.headers.location, '/two-factor-challenge');
      await browser.get('/two-factor-challenge');
      // The confirmation spent this step's code: the next step's is new.
      const passed = await browser.post('/two-factor-challenge', { code: enrolled.code(1) });
      assert.equal(passed.headers.location, '/dashboard', passed.body);
      await browser.get('/dashboard');
      assert.equal(
        (await browser.postJson('/user/confirm-password', { password: user.password })).statusCode,
        204,
      );
      await enrolPasskey(browser, new SoftwareAuthenticator(TEST_ORIGIN));
      assert.equal(await passkeyCount(t, user.id), 1);
    });

    test('password confirmation required: JSON 423, forms to the confirmation page; guests 401/302; CSRF 419', async () => {
      const t = ctx();
      const { browser } = await signedInBrowser(t);
      for (const url of ['/user/passkeys', '/user/passkeys/options']) {
        const answer = await browser.get(url, { accept: 'application/json' });
        assert.equal(answer.statusCode, 423, url);
        assert.deepEqual(answer.json(), { message: 'Password confirmation required.' });
      }
      assert.equal((await sendJson(browser, 'POST', '/user/passkeys', { name: 'x' })).statusCode, 423);
      assert.equal((await sendJson(browser, 'PUT', '/user/passkeys/1', { name: 'x' })).statusCode, 423);
      assert.equal((await sendJson(browser, 'DELETE', '/user/passkeys/1')).statusCode, 423);
      const form = await browser.post(
        '/user/passkeys',
        { name: 'x' },
        { referer: 'http://gatehouse.test/profile' },
      );
      assert.equal(form.statusCode, 302);
      assert.equal(form.headers.location, '/user/confirm-password');

      const guest = await t.app.inject({ url: '/user/passkeys', headers: { accept: 'application/json' } });
      assert.equal(guest.statusCode, 401);
      const guestPage = await t.app.inject({
        url: '/user/passkeys/options',
        headers: { accept: 'text/html' },
      });
      assert.equal(guestPage.statusCode, 302);
      assert.equal(guestPage.headers.location, '/login');

      const confirmed = await confirmedBrowser(t);
      const credential = await registrationResponse(
        confirmed.browser,
        new SoftwareAuthenticator(TEST_ORIGIN),
      );
      const forged = await sendJson(
        confirmed.browser,
        'POST',
        '/user/passkeys',
        { name: 'x', credential },
        {
          'x-csrf-token': 'forged',
        },
      );
      assert.equal(forged.statusCode, 419);
      assert.equal(await passkeyCount(t, confirmed.user.id), 0);
    });
  },
  { overrides: { clock } },
);
