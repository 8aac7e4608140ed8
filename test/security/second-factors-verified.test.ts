import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sendJson } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { SoftwareAuthenticator } from '../helpers/passkey-authenticator.ts';
import { confirmedBrowser, passkeyCount, registrationResponse, TEST_ORIGIN } from '../helpers/passkeys.ts';

const UNVERIFIED = { message: 'Your email address is not verified.' };

async function twoFactorRows(t: TestApp, userId: number): Promise<number> {
  const row = await t.db
    .selectFrom('two_factor_credentials')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * docs/security.md "Second factors need a verified address": enrolling two-factor or a passkey needs a
 * verified e-mail (403 as the verified pages, HTML: the verification notice). The audit's repro: register
 * someone's address unverified, confirm, plant a passkey; the owner's later password reset verifies the
 * address and the planted passkey signed in.
 */
await describeEachDialect('second factors need a verified address', (ctx) => {
  test('an unverified account cannot start or confirm two-factor, nor ask for or register a passkey', async () => {
    const t = ctx();
    const user = await t.createUser({ verified: false });
    const { browser } = await confirmedBrowser(t, user);

    const start = await sendJson(browser, 'POST', '/user/two-factor-authentication');
    assert.equal(start.statusCode, 403, start.body);
    assert.deepEqual(start.json(), UNVERIFIED);
    const confirm = await sendJson(browser, 'POST', '/user/confirmed-two-factor-authentication', {
      code: '123456',
    });
    assert.equal(confirm.statusCode, 403, confirm.body);
    assert.deepEqual(confirm.json(), UNVERIFIED);
    assert.equal(await twoFactorRows(t, user.id), 0, 'no enrolment stored');

    // The form way: to the verification notice, nothing stored.
    await browser.get('/email/verify');
    const form = await browser.post('/user/two-factor-authentication');
    assert.equal(form.statusCode, 302, form.body);
    assert.equal(form.headers.location, '/email/verify');
    assert.equal(await twoFactorRows(t, user.id), 0);

    const options = await browser.get('/user/passkeys/options', { accept: 'application/json' });
    assert.equal(options.statusCode, 403, options.body);
    assert.deepEqual(options.json(), UNVERIFIED);
    const created = await sendJson(browser, 'POST', '/user/passkeys', { name: 'Planted', credential: {} });
    assert.equal(created.statusCode, 403, created.body);
    assert.deepEqual(created.json(), UNVERIFIED);
    assert.equal(await passkeyCount(t, user.id), 0);
  });

  test('once the address is verified, the same account enrols both', async () => {
    const t = ctx();
    const user = await t.createUser({ verified: false });
    await t.db
      .updateTable('users')
      .set({ email_verified_at: Date.now() })
      .where('id', '=', user.id)
      .execute();
    const { browser } = await confirmedBrowser(t, user);
    const start = await sendJson(browser, 'POST', '/user/two-factor-authentication');
    assert.equal(start.statusCode, 204, start.body);
    const authenticator = new SoftwareAuthenticator(TEST_ORIGIN);
    const credential = await registrationResponse(browser, authenticator);
    const created = await sendJson(browser, 'POST', '/user/passkeys', { name: 'Mine', credential });
    assert.equal(created.statusCode, 201, created.body);
  });
});
