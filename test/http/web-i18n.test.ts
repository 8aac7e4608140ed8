import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestApp, describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';

const FAILED: Record<string, string> = {
  en: 'These credentials do not match our records.',
  de: 'Diese Kombination aus Zugangsdaten wurde nicht in unserer Datenbank gefunden.',
  fr: 'Ces identifiants ne correspondent pas à nos enregistrements.',
  es: 'Estas credenciales no coinciden con nuestros registros.',
};
const REQUIRED_EMAIL: Record<string, string> = {
  en: 'The email field is required.',
  de: 'E-Mail-Adresse muss ausgefüllt werden.',
  fr: 'Le champ adresse e-mail est obligatoire.',
  es: 'El campo correo electrónico es obligatorio.',
};
const LOGIN_TITLE: Record<string, string> = {
  en: 'Log in',
  de: 'Anmelden',
  fr: 'Se connecter',
  es: 'Iniciar sesión',
};

const htmlText = (text: string) => text.replace(/'/g, '&#39;');

await describeApp('languages (docs/guides/languages.md)', (ctx) => {
  test('?lang= wins and is remembered in a locale cookie; then cookie; then Accept-Language', async () => {
    const { app } = ctx();
    const browser = new Browser(app, { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.5' });
    const byHeader = await browser.get('/login');
    assert.match(byHeader.body, /<html lang="fr">/);
    assert.ok(byHeader.body.includes(`<h1>${LOGIN_TITLE['fr']}</h1>`));
    assert.equal(
      byHeader.cookies.find((c) => c.name === 'locale'),
      undefined,
      'no cookie without ?lang',
    );

    const byQuery = await browser.get('/login?lang=de');
    assert.match(byQuery.body, /<html lang="de">/);
    const cookie = byQuery.cookies.find((c) => c.name === 'locale');
    assert.equal(cookie?.value, 'de');
    assert.equal(cookie?.httpOnly, true);

    const byCookie = await browser.get('/register');
    assert.match(byCookie.body, /<html lang="de">/, 'the cookie beats Accept-Language');
    assert.match(byCookie.body, /<h1>Konto erstellen<\/h1>/);

    const override = await browser.get('/register?lang=es');
    assert.match(override.body, /<html lang="es">/, '?lang beats the cookie');
    assert.equal(browser.cookies.get('locale'), 'es');

    const junk = await browser.get('/login?lang=xx');
    assert.match(junk.body, /<html lang="es">/, 'an unsupported ?lang is ignored');
    assert.equal(
      junk.cookies.find((c) => c.name === 'locale'),
      undefined,
    );
  });

  test('the language switcher links every supported language and marks the current one', async () => {
    const { app } = ctx();
    const page = await app.inject({ url: '/register?lang=fr' });
    for (const locale of ['en', 'de', 'fr', 'es'])
      assert.match(page.body, new RegExp(`href="/register\\?lang=${locale}"`));
    assert.match(page.body, /href="\/register\?lang=fr" hreflang="fr" lang="fr" aria-current="true">FR</);
  });

  for (const locale of ['en', 'de', 'fr', 'es']) {
    test(`${locale}: auth.failed on the form and validation messages in HTML and JSON`, async () => {
      const { app, createUser } = ctx();
      const user = await createUser();
      const browser = new Browser(app);
      await browser.get(`/login?lang=${locale}`);
      const failed = await browser.post('/login', { email: user.email, password: 'wrong-password' });
      assert.equal(failed.statusCode, 422);
      assert.ok(failed.body.includes(htmlText(FAILED[locale]!)), `auth.failed in ${locale}`);
      assert.match(failed.body, new RegExp(`<html lang="${locale}">`));

      const invalid = await browser.post('/login', { email: '', password: 'secret123' });
      assert.ok(invalid.body.includes(htmlText(REQUIRED_EMAIL[locale]!)), `validation.required in ${locale}`);

      const json = await browser.postJson('/login', { email: user.email, password: 'wrong-password' });
      assert.deepEqual(json.json(), { message: FAILED[locale], errors: { email: [FAILED[locale]] } });
    });
  }

  test('JSON messages follow the language too (401, 419, throttle)', async () => {
    const { app, createUser } = ctx();
    const unauthenticated = await app.inject({ url: '/api/user', headers: { 'accept-language': 'de' } });
    assert.deepEqual(unauthenticated.json(), { message: 'Nicht authentifiziert.' });
    const csrf = await app.inject({
      method: 'POST',
      url: '/logout?lang=fr',
      headers: { accept: 'application/json' },
    });
    assert.equal(csrf.statusCode, 419);
    assert.deepEqual(csrf.json(), { message: 'Jeton CSRF non concordant.' });

    const user = await createUser();
    const browser = new Browser(app, { 'accept-language': 'es' });
    await browser.get('/login');
    for (let i = 0; i < 5; i++)
      await browser.post('/login', { email: user.email, password: 'wrong-password' });
    const throttled = await browser.postJson('/login', { email: user.email, password: user.password });
    assert.equal(throttled.statusCode, 429);
    assert.match(
      throttled.json().message,
      /^Demasiados intentos de acceso\. Por favor intente nuevamente en \d+ segundos\.$/,
    );
  });

  test('registration keeps the language of the request on the user record', async () => {
    const { app, db } = ctx();
    const browser = new Browser(app, { 'accept-language': 'es-ES,es;q=0.9' });
    await browser.get('/register');
    const email = `idioma-${Date.now()}@example.com`;
    const response = await browser.post('/register', {
      name: 'María',
      email,
      password: 'naranja-cohete-77',
      password_confirmation: 'naranja-cohete-77',
    });
    assert.equal(response.statusCode, 302);
    const row = await db
      .selectFrom('users')
      .select('locale')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    assert.equal(row.locale, 'es');
  });
});

test('APP_LOCALE is the language when the request names none', async () => {
  const t = await createTestApp('sqlite', { env: { APP_LOCALE: 'de', APP_FALLBACK_LOCALE: 'en' } });
  try {
    const page = await t.app.inject({ url: '/login' });
    assert.match(page.body, /<html lang="de">/);
    assert.match(page.body, /<h1>Anmelden<\/h1>/);
    const english = await t.app.inject({ url: '/login', headers: { 'accept-language': 'en-GB' } });
    assert.match(english.body, /<html lang="en">/);
  } finally {
    await t.close();
  }
});
