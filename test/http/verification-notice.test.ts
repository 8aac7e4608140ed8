import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedInBrowser } from '../helpers/account.ts';
import { describeApp } from '../helpers/app.ts';

let unique = 0;
const address = (name: string) => `${name}-${Date.now()}-${++unique}@example.net`;

/**
 * The verification notice's ways out of a mistyped address (docs/guides/account.md): correct it —
 * PUT /user/profile-information, whose link then goes to the corrected address — or delete the account.
 * Both forms live on the notice, and fail back onto it, since the account area is closed to the user.
 */
await describeApp('the verification notice: correct the address or delete the account', (ctx) => {
  test('correcting the address from the notice: back on the notice, the link sent to the corrected address', async () => {
    const t = ctx();
    const user = await t.createUser({ verified: false });
    const { browser } = await signedInBrowser(t, { user });
    const notice = await browser.get('/email/verify');
    assert.match(notice.body, /<form method="post" action="\/user\/profile-information" novalidate>/);
    assert.ok(notice.body.includes(`<input type="hidden" name="name" value="${user.name}">`));
    assert.ok(notice.body.includes(`value="${user.email}"`), 'the current address, ready to correct');
    assert.match(notice.body, /<form method="post" action="\/user" novalidate>/);

    const fixed = address('fixed');
    const done = await browser.post('/user/profile-information', {
      _method: 'PUT',
      name: user.name,
      email: fixed,
    });
    assert.equal(done.statusCode, 302);
    assert.equal(done.headers.location, '/email/verify');
    const after = await browser.get('/email/verify');
    assert.ok(after.body.includes(`Your address is now ${fixed}: we sent a new verification link there.`));
    assert.ok(after.body.includes(fixed.replace('@', '<wbr>@')), 'the notice names the corrected address');
    const mails = await t.db
      .selectFrom('mail_outbox')
      .select('kind')
      .where('recipient', '=', fixed)
      .execute();
    assert.deepEqual(
      mails.map((m) => m.kind),
      ['verify-email'],
    );
  });

  test('a taken address, or a wrong password for deleting: the notice again, the error beside its field', async () => {
    const t = ctx();
    const other = await t.createUser();
    const user = await t.createUser({ verified: false });
    const { browser } = await signedInBrowser(t, { user });
    await browser.get('/email/verify');
    const taken = await browser.post('/user/profile-information', {
      _method: 'PUT',
      name: user.name,
      email: other.email,
    });
    assert.equal(taken.statusCode, 422);
    assert.match(taken.body, /<title>1 error: Verify your email address/);
    assert.match(taken.body, /<details class="notice-option" open>\s*<summary>Wrong address\? Correct it/);
    assert.match(taken.body, /id="field-email-error">The email has already been taken\./);
    assert.doesNotMatch(taken.body, /class="account-nav"/, 'not the account area');

    const wrong = await browser.post('/user', { _method: 'DELETE', password: 'not my password' });
    assert.equal(wrong.statusCode, 422);
    assert.match(wrong.body, /id="field-delete-password-error">The provided password was incorrect\./);
    const gone = await browser.post('/user', { _method: 'DELETE', password: user.password });
    assert.equal(gone.statusCode, 302);
    assert.equal(gone.headers.location, '/');
    const row = await t.db.selectFrom('users').select('id').where('id', '=', user.id).executeTakeFirst();
    assert.equal(row, undefined, 'the account is gone');
  });

  test('corrections draw on the resend budget: no stream of links to address after address', async () => {
    const t = ctx();
    const user = await t.createUser({ verified: false });
    const { browser } = await signedInBrowser(t, { user });
    await browser.get('/email/verify');
    for (let i = 0; i < 6; i++) {
      const moved = await browser.post('/user/profile-information', {
        _method: 'PUT',
        name: user.name,
        email: address(`try${i}`),
      });
      assert.equal(moved.statusCode, 302, `correction ${i + 1}`);
    }
    const refused = await browser.post('/user/profile-information', {
      _method: 'PUT',
      name: user.name,
      email: address('seventh'),
    });
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.match(
      refused.body,
      /id="field-email-error">You have asked for several verification e-mails in a short time\./,
    );
  });
});
