import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storeResetToken } from '../../src/auth/password-reset/password-resets.repository.ts';
import { randomToken, sha256Hex } from '../../src/lib/crypto.ts';
import { sendJson, signedInBrowser } from '../helpers/account.ts';
import { describeEachDialect, type TestApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const GOOD = 'tangerine-orbit-42';
const VARIANT = /common password with a few characters changed or added/;
const PERSONAL = /must not contain your e-mail address, your name or the name of this service/;
let counter = 0;

function unique(local: string) {
  counter++;
  return `${local}${counter}x${Date.now()}@example.com`;
}

async function register(t: TestApp, form: { name?: string; email?: string; password: string }, lang = 'en') {
  const browser = new Browser(t.app);
  await browser.get(`/register?lang=${lang}`);
  return browser.postJson('/register', {
    name: form.name ?? 'Quentin Blake',
    email: form.email ?? unique('reader'),
    password: form.password,
    password_confirmation: form.password,
  });
}

/** The docs/reference/errors.md shape: 422, a message, and exactly the password field's error. */
function passwordError(response: { statusCode: number; json(): unknown; body: string }): string {
  assert.equal(response.statusCode, 422, response.body);
  const body = response.json() as { message: string; errors: Record<string, string[]> };
  assert.deepEqual(Object.keys(body.errors), ['password']);
  assert.equal(body.message, body.errors['password']![0]);
  return body.errors['password']![0]!;
}

/** A reset link for `userId`, planted as forgot-password would store it. */
async function resetToken(t: TestApp, userId: number): Promise<string> {
  const token = randomToken(32);
  await storeResetToken(t.db, userId, sha256Hex(token), t.services.clock.now(), 0);
  return token;
}

/** docs/security.md "Password rules": no common password dressed up, nothing an attacker knows of the account. */
await describeEachDialect('password rules', (ctx) => {
  test('password rules: common passwords with digits appended or look-alike digits are refused (registration)', async () => {
    const t = ctx();
    for (const password of ['Passw0rd123', 'password1234', 'Passw0rd12', 'P@ssw0rd!!', '2024sunshine!']) {
      assert.match(passwordError(await register(t, { password })), VARIANT, password);
    }
    assert.equal((await register(t, { password: GOOD })).statusCode, 204, 'a real passphrase passes');
  });

  test('password rules: keyboard walks dressed up are refused too (Qwerty123456!)', async () => {
    const t = ctx();
    // Issue 27, item 18: a black-box run registered `Qwerty123456!`. Guessing tools walk the keyboard's
    // rows and columns (QWERTY, QWERTZ, AZERTY) before any word list, and dress them up like words.
    for (const password of [
      'Qwerty123456!',
      'Asdfgh2024!',
      'Qwertz1234!',
      'Azerty2024?',
      'Zxcvbnm1!',
      '!1qaz2wsx',
      'Qazwsx123!',
      'Ytrewq123!',
      'Password1!',
    ]) {
      assert.match(passwordError(await register(t, { password })), VARIANT, password);
    }
    for (const password of ['qwerty is my cat 42', 'asdfjklö-summer-river']) {
      assert.equal((await register(t, { password })).statusCode, 204, `${password}: a passphrase passes`);
    }
  });

  test('password rules: the e-mail local part, the name and APP_NAME are refused, case-insensitive', async () => {
    const t = ctx();
    const email = unique('marguerite.duras');
    const local = email.split('@')[0]!;
    assert.match(
      passwordError(await register(t, { email, password: `${local.toUpperCase()}-forever` })),
      PERSONAL,
      'the local part',
    );
    assert.match(
      passwordError(await register(t, { name: 'Quentin Blake', password: 'my friend quentin blake!' })),
      PERSONAL,
      'the whole name',
    );
    assert.match(
      passwordError(await register(t, { name: 'Quentin Blake', password: 'drawings-by-BLAKE-77' })),
      PERSONAL,
      'a word of the name',
    );
    assert.match(
      passwordError(await register(t, { password: 'my GateHouse password' })),
      PERSONAL,
      'APP_NAME (Gatehouse)',
    );
  });

  test('password rules: parts shorter than 4 characters are not refused', async () => {
    const t = ctx();
    const response = await register(t, {
      name: 'Al Bo',
      email: `li@n${Date.now()}${counter++}.example.com`,
      password: 'al-bo-li-tangerine',
    });
    assert.equal(response.statusCode, 204, response.body);
  });

  test('password rules: clear messages in de, fr and es', async () => {
    const t = ctx();
    const expected = {
      de: /gängiges Passwort/,
      fr: /mot de passe courant/,
      es: /contraseña común/,
    } as const;
    for (const [lang, pattern] of Object.entries(expected)) {
      assert.match(passwordError(await register(t, { password: 'password1234' }, lang)), pattern, lang);
    }
    assert.match(
      passwordError(await register(t, { password: 'das ist mein gatehouse' }, 'de')),
      /darf weder Ihre E-Mail-Adresse noch Ihren Namen/,
    );
    assert.match(
      passwordError(await register(t, { password: 'voici mon gatehouse' }, 'fr')),
      /ne doit contenir ni votre adresse e-mail/,
    );
    assert.match(
      passwordError(await register(t, { password: 'este es mi gatehouse' }, 'es')),
      /no debe contener su dirección de correo/,
    );
  });

  test('password rules: a password change refuses the account’s own address, name and dressed-up common passwords', async () => {
    const t = ctx();
    const user = await t.createUser({ name: 'Beatrix Potter', email: unique('peter.rabbit') });
    const { browser } = await signedInBrowser(t, { user });
    const change = (password: string) =>
      sendJson(browser, 'PUT', '/user/password', {
        current_password: user.password,
        password,
        password_confirmation: password,
      });
    assert.match(passwordError(await change('potter-and-her-rabbits')), PERSONAL, 'the name');
    assert.match(passwordError(await change(`${user.email.split('@')[0]}!!`)), PERSONAL, 'the local part');
    assert.match(passwordError(await change('Passw0rd12')), VARIANT);
    assert.equal((await change(GOOD)).statusCode, 204, 'a good one is taken');
  });

  test('password rules: a password reset refuses the account’s name (after the link is proven) and its address', async () => {
    const t = ctx();
    const user = await t.createUser({ name: 'Jules Verne', email: unique('nemo') });
    const browser = new Browser(t.app);
    await browser.get('/forgot-password');
    const reset = async (password: string) =>
      browser.postJson('/reset-password', {
        token: await resetToken(t, user.id),
        email: user.email,
        password,
        password_confirmation: password,
      });
    assert.match(passwordError(await reset('twenty-thousand-VERNE')), PERSONAL, 'the name');
    assert.match(passwordError(await reset(`${user.email.split('@')[0]}-under-the-sea`)), PERSONAL);
    assert.match(passwordError(await reset('password1234')), VARIANT);
    // The name is not judged for a link that does not work: that answer would confirm a guessed name.
    const forged = await browser.postJson('/reset-password', {
      token: randomToken(32),
      email: user.email,
      password: 'twenty-thousand-VERNE',
      password_confirmation: 'twenty-thousand-VERNE',
    });
    assert.equal(forged.statusCode, 422);
    assert.deepEqual(Object.keys(forged.json().errors), ['email']);
    assert.equal((await reset(GOOD)).statusCode, 200);
  });
});
