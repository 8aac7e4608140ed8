import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPool } from '../../src/auth/passwords/hash-pool.ts';
import { OWASP_ARGON2ID } from '../../src/auth/passwords/passwords.ts';
import { up as normaliseStoredEmails } from '../../src/db/migrations/2026_11_28_000101_normalise_stored_emails.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { sendJson, signedInAdmin, signedInBrowser } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const clock = fakeClock();
const MINUTE = 60_000;
let counter = 0;

/** "josé…" with a precomposed é (U+00E9) and with e + U+0301: the same text to a reader. */
function joseAddresses() {
  counter++;
  const local = `jos\u00e9.${counter}.${Date.now()}`;
  const composed = `${local}@example.com`;
  return {
    composed,
    decomposed: composed.normalize('NFD'),
    mixedCase: composed.normalize('NFD').toUpperCase(),
  };
}

async function register(t: TestApp, email: string, password = 'tangerine-orbit-42') {
  const browser = new Browser(t.app);
  await browser.get('/register');
  const response = await browser.postJson('/register', {
    name: 'José',
    email,
    password,
    password_confirmation: password,
  });
  return response;
}

async function login(t: TestApp, email: string, password: string) {
  const browser = new Browser(t.app);
  await browser.get('/login');
  return browser.postJson('/login', { email, password });
}

const usersNamed = (t: TestApp, email: string) =>
  t.db.selectFrom('users').selectAll().where('email', '=', email).execute();

/** docs/security.md "Normalisation": e-mails NFC before lower-casing; passwords NFKC before hashing and checking. */
await describeEachDialect(
  'normalisation of e-mails and passwords',
  (ctx) => {
    test('normalisation: composed and decomposed josé@… are one account (registration, login, reset, API)', async () => {
      const t = ctx();
      const { composed, decomposed, mixedCase } = joseAddresses();
      assert.notEqual(composed, decomposed);
      assert.equal((await register(t, decomposed)).statusCode, 204);
      const [row] = await usersNamed(t, composed);
      assert.ok(row, 'stored NFC and lower-cased');

      const again = await register(t, composed);
      assert.equal(again.statusCode, 422, 'the composed form is the same address');
      assert.deepEqual(Object.keys(again.json().errors), ['email']);
      assert.equal(
        (await register(t, mixedCase)).statusCode,
        422,
        'and so is the upper-cased decomposed form',
      );

      assert.equal((await login(t, composed, 'tangerine-orbit-42')).statusCode, 204);
      assert.equal((await login(t, mixedCase, 'tangerine-orbit-42')).statusCode, 204);
      const token = await t.app.inject({
        method: 'POST',
        url: '/api/tokens',
        payload: { email: decomposed, password: 'tangerine-orbit-42', device_name: 'x' },
      });
      assert.equal(token.statusCode, 200);

      clock.advance(2 * MINUTE);
      const browser = new Browser(t.app);
      await browser.get('/forgot-password');
      assert.equal((await browser.postJson('/forgot-password', { email: mixedCase })).statusCode, 200);
      // The reset's work starts after the (fixed) answer is sent: wait for its row.
      let resets = 0;
      for (let i = 0; i < 100 && resets === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const rows = await t.db
          .selectFrom('password_reset_tokens')
          .select('user_id')
          .where('user_id', '=', row.id)
          .execute();
        resets = rows.length;
      }
      assert.equal(resets, 1, 'the reset found the account through the decomposed form');
    });

    test('normalisation: an invitation and an e-mail change to the other form of a taken address are refused', async () => {
      const t = ctx();
      const { composed, decomposed } = joseAddresses();
      await t.createUser({ email: composed });
      const { user: other, browser } = await signedInBrowser(t);
      const change = await sendJson(browser, 'PUT', '/user/profile-information', {
        name: 'Other',
        email: decomposed,
      });
      assert.equal(change.statusCode, 422, change.body);
      assert.deepEqual(Object.keys(change.json().errors), ['email']);
      const stillOther = await t.db
        .selectFrom('users')
        .select(['email', 'pending_email'])
        .where('id', '=', other.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stillOther, { email: other.email, pending_email: null });

      const { browser: panel } = await signedInAdmin(t);
      const invite = await sendJson(panel, 'POST', '/admin/users', { name: 'Twin', email: decomposed });
      assert.equal(invite.statusCode, 422, invite.body);
      assert.equal((await usersNamed(t, composed)).length, 1, 'still one account');
    });

    test('normalisation: NFC and NFD passwords are one password (NFKC before hashing and checking)', async () => {
      const t = ctx();
      const { composed } = joseAddresses();
      const typedComposed = 'Cr\u00e8me-br\u00fbl\u00e9e-horizon';
      const typedDecomposed = typedComposed.normalize('NFD');
      assert.equal((await register(t, composed, typedDecomposed)).statusCode, 204);
      assert.equal((await login(t, composed, typedComposed)).statusCode, 204, 'the other form logs in');
      assert.equal((await login(t, composed, typedDecomposed)).statusCode, 204);
      // Compatibility forms too: full-width letters are the ASCII ones.
      const { composed: second } = joseAddresses();
      assert.equal((await register(t, second, 'ＷＩＤＥ-lantern-river-9')).statusCode, 204);
      assert.equal((await login(t, second, 'WIDE-lantern-river-9')).statusCode, 204);
    });

    test('normalisation: a hash made of the un-normalised password still verifies, and is replaced on login', async () => {
      const t = ctx();
      const typed = 'Cr\u00e8me-br\u00fbl\u00e9e-horizon'.normalize('NFD');
      // A hash from before normalisation: argon2id of the raw (decomposed) password.
      const legacy = (await hashPool(1).run({
        op: 'argon2.hash',
        password: typed,
        options: { algorithm: 2, ...OWASP_ARGON2ID },
      })) as string;
      const user = await t.createUser();
      await t.db.updateTable('users').set({ password: legacy }).where('id', '=', user.id).execute();

      assert.equal((await login(t, user.email, typed)).statusCode, 204, 'the raw form still verifies');
      const { password: replaced } = await t.db
        .selectFrom('users')
        .select('password')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(replaced, legacy, 'rehashed on success');
      assert.equal(await t.services.hasher.check(replaced, typed.normalize('NFC')), 'ok');
      assert.equal(
        (await login(t, user.email, typed.normalize('NFC'))).statusCode,
        204,
        'now either form works',
      );
      assert.equal((await login(t, user.email, 'Creme-brulee-horizon')).statusCode, 422);
    });

    test('normalisation: an address stored decomposed before this rule is rewritten in NFC by the migration', async () => {
      const t = ctx();
      const { composed, decomposed } = joseAddresses();
      const user = await t.createUser({ email: decomposed });
      assert.equal((await usersNamed(t, decomposed)).length, 1, 'stored as it was typed, before the rule');
      assert.equal((await login(t, composed, user.password)).statusCode, 422, 'unreachable until migrated');
      await normaliseStoredEmails(t.db as never);
      const [row] = await usersNamed(t, composed);
      assert.equal(row?.id, user.id, 'now stored NFC');
      assert.equal((await login(t, decomposed, user.password)).statusCode, 204);
    });
  },
  // Rehash-on-login (a hash of the un-normalised password is replaced) at the real argon2id cost.
  { overrides: { clock }, argon2: OWASP_ARGON2ID },
);
