import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sendJson, signedInBrowser } from '../helpers/account.ts';
import { describeApp } from '../helpers/app.ts';
import { enableTwoFactor } from '../helpers/two-factor.ts';

const NEW_PASSWORD = 'violet-harbour-lantern-7';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** The area a page shows (`<div class="account-area open" … data-area="…">`) and its navigation's mark. */
function openArea(body: string): { shown: string | undefined; current: string | undefined } {
  return {
    shown: /class="account-area open" id="area-[a-z-]+" data-area="([a-z-]+)"/.exec(body)?.[1],
    current: /data-area="([a-z-]+)" aria-current="page"/.exec(body)?.[1],
  };
}

await describeApp('the account area and its forms (docs/guides/account.md)', (ctx) => {
  test('/profile/{area}: each page of the side navigation, marked current; an unknown one is 404', async () => {
    const { browser } = await signedInBrowser(ctx());
    assert.deepEqual(openArea((await browser.get('/profile')).body), {
      shown: 'profile',
      current: 'profile',
    });
    for (const area of ['security', 'sessions', 'tokens', 'data']) {
      const page = await browser.get(`/profile/${area}`);
      assert.equal(page.statusCode, 200, area);
      assert.deepEqual(openArea(page.body), { shown: area, current: area });
      assert.match(page.body, /<a href="\/profile" data-area="profile">Profile<\/a>/);
      assert.match(page.body, /<title>[^<]+ · Your account · Gatehouse<\/title>/);
    }
    assert.equal(
      (await browser.get('/profile/profile')).statusCode,
      404,
      'the first area is /profile itself',
    );
    assert.equal((await browser.get('/profile/nothing')).statusCode, 404);
    const german = await browser.get('/profile/security?lang=de');
    assert.match(german.body, /aria-current="page">Sicherheit</);
    await browser.get('/profile?lang=en');
  });

  test('a failed form is shown in its own area, whatever page sent it', async () => {
    const { browser } = await signedInBrowser(ctx());
    await browser.get('/profile/tokens');
    const failed = await browser.post('/user/password', { _method: 'PUT', current_password: '' });
    assert.equal(failed.statusCode, 422);
    assert.deepEqual(openArea(failed.body), { shown: 'security', current: 'security' });
    assert.match(failed.body, /<title>\d errors?: Security · Your account/);
  });

  test('password change: one pass reports every error — a wrong current password beside a too-short new one', async () => {
    const t = ctx();
    const { user, browser } = await signedInBrowser(t);
    await browser.get('/profile/security');
    const both = await browser.post('/user/password', {
      _method: 'PUT',
      current_password: 'not my password',
      password: 'short',
      password_confirmation: 'short',
    });
    assert.equal(both.statusCode, 422);
    assert.match(
      both.body,
      /id="field-current_password-error">The provided password does not match your current password\./,
    );
    assert.match(both.body, /id="field-password-error">The password field must be at least 8 characters\./);
    assert.match(both.body, /<input id="field-current_password"[^>]* autofocus/, 'the first error has focus');
    // One note for the form, not one per password field; every cleared field points at it.
    assert.equal(both.body.split('class="hint cleared"').length - 1, 1);
    assert.match(both.body, /For your security the passwords were not kept\. Please enter them again\./);
    for (const field of ['current_password', 'password', 'password_confirmation']) {
      assert.match(
        both.body,
        new RegExp(`<input id="field-${field}"[^>]*aria-describedby="[^"]*field-current_password-cleared`),
        field,
      );
    }
    // The right current password beside a weak new one: only the new one is wrong.
    const weak = await browser.post('/user/password', {
      _method: 'PUT',
      current_password: user.password,
      password: 'short',
      password_confirmation: 'short',
    });
    assert.equal(weak.statusCode, 422);
    assert.doesNotMatch(weak.body, /does not match your current password/);
    // JSON clients get every error too.
    const json = await sendJson(browser, 'PUT', '/user/password', {
      current_password: 'nope nope',
      password: 'short',
      password_confirmation: 'short',
    });
    assert.equal(json.statusCode, 422);
    assert.deepEqual(Object.keys(json.json().errors).sort(), ['current_password', 'password']);
    const ok = await browser.post('/user/password', {
      _method: 'PUT',
      current_password: user.password,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    assert.equal(ok.statusCode, 302);
  });

  test('new password fields carry the strength meter (shown by the script) beside the rules', async () => {
    const { browser } = await signedInBrowser(ctx());
    const page = await browser.get('/profile/security');
    assert.match(
      page.body,
      /<div class="strength" data-strength data-min="8"[^>]*data-label-4="Strength: strong" hidden>/,
    );
    const register = await ctx().app.inject({ url: '/register' });
    assert.match(register.body, /data-strength/);
  });

  test('sessions: when each browser signed in, times for the script to localise, a distinct name per sign-out button', async () => {
    const t = ctx();
    const { user, browser } = await signedInBrowser(t, { headers: { 'user-agent': FIREFOX } });
    await signedInBrowser(t, { user, headers: { 'user-agent': FIREFOX } });
    await signedInBrowser(t, { user, headers: { 'user-agent': FIREFOX } });
    const page = await browser.get('/profile/sessions');
    assert.match(page.body, /<th scope="col">Signed in<\/th>/);
    assert.match(page.body, /<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z" data-relative>[^<]+ UTC<\/time>/);
    const names = [
      ...page.body.matchAll(/class="button secondary small" aria-label="([^"]+)">Sign out</g),
    ].map((m) => m[1]!);
    assert.equal(names.length, 2, 'the two other browsers');
    assert.equal(new Set(names).size, 2, `all different: ${names.join(' | ')}`);
    for (const name of names) assert.match(name, /^Sign out Firefox 128 · Linux at 127\.0\.0\.1, signed in /);
  });

  test('API tokens: the abilities toggle names what it changes, revoking asks first, "Never" says the server lifetime', async () => {
    const t = ctx();
    const { user, browser } = await signedInBrowser(t);
    await t.issueToken(user.email, user.password, { device_name: 'ci runner', abilities: ['posts:read'] });
    const page = await browser.get('/profile/tokens');
    assert.match(
      page.body,
      /<summary><code>posts:read<\/code> <span class="summary-action">Change<span class="visually-hidden"> the abilities of ci runner<\/span><\/span><\/summary>/,
    );
    assert.match(
      page.body,
      /<details class="confirm"><summary class="button danger-outline small" aria-label="Revoke ci runner">Revoke<\/summary>/,
    );
    assert.match(page.body, /Revoke ci runner\? Every script using it is refused from now on/);
    assert.match(
      page.body,
      /<option value="" selected>No date of its own<\/option>[\s\S]*Every token also ends 365 days after it is made \(the server(&#39;|')s limit\)\./,
    );
  });

  test('the dashboard says whether two-factor and passkeys are on, and nudges while neither is', async () => {
    const t = ctx();
    const { user, browser } = await signedInBrowser(t);
    const off = await browser.get('/dashboard');
    assert.match(off.body, /<dt>Two-factor authentication<\/dt><dd><span class="badge warn">Off<\/span>/);
    assert.match(off.body, /<dt>Passkeys<\/dt><dd><span class="badge">None yet<\/span>/);
    assert.match(off.body, /Only your password protects this account\./);
    assert.match(off.body, /href="\/user\/two-factor">Set up two-factor authentication</);
    await enableTwoFactor(t, user);
    const on = await browser.get('/dashboard');
    assert.match(on.body, /<dt>Two-factor authentication<\/dt><dd><span class="badge ok">On<\/span>/);
    assert.match(on.body, /Signing in needs a code from your phone as well as your password\./);
    assert.doesNotMatch(on.body, /href="\/user\/two-factor">/, 'no nudge once it is on');
  });
});
