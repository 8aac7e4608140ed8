import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signedInBrowser } from '../helpers/account.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * Passkey buttons appear only where a browser can use them (docs/guides/passkeys.md): never when APP_URL
 * names an IP address, which every browser refuses as a passkey domain; and a SecurityError (the page
 * opened at another address than APP_URL) is explained by naming the address where they work.
 */
describe('passkeys on the pages: where they can work, and what a refusal means', () => {
  let named: TestApp;
  let numeric: TestApp;
  before(async () => {
    named = await createTestApp('sqlite');
    numeric = await createTestApp('sqlite', { env: { APP_URL: 'http://127.0.0.1:8080' } });
  });
  after(async () => {
    await named?.close();
    await numeric?.close();
  });

  test('APP_URL with a host name: the passkey sign-in and the add form carry the explanation of a SecurityError', async () => {
    const login = await named.app.inject({ url: '/login?lang=de' });
    assert.match(login.body, /data-passkey-login/);
    assert.match(
      login.body,
      /data-error-security="Ihr Browser hat Passkeys unter dieser Adresse abgelehnt: Sie funktionieren nur unter http:\/\/gatehouse\.test\/login\./,
    );
    const { browser } = await signedInBrowser(named);
    const profile = await browser.get('/profile');
    assert.match(profile.body, /data-passkey-register/);
    assert.match(profile.body, /data-error-security="[^"]*http:\/\/gatehouse\.test\/profile#passkeys/);
  });

  test('APP_URL with an IP address: no passkey button anywhere, and the account page says why', async () => {
    const login = await numeric.app.inject({ url: '/login' });
    assert.equal(login.statusCode, 200);
    assert.doesNotMatch(login.body, /data-passkey-login|passkeys\.js/);
    assert.match(login.body, /autocomplete="username"/, 'no passkey autofill on the e-mail field either');
    const { browser } = await signedInBrowser(numeric);
    const profile = await browser.get('/profile');
    assert.doesNotMatch(profile.body, /data-passkey-register|action="\/user\/passkeys"/);
    assert.match(
      profile.body,
      /Passkeys are not available here: this server is set up with an IP address \(127\.0\.0\.1\)/,
    );
  });
});
