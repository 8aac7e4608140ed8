import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createI18n, loadCatalog } from '../../src/i18n/i18n.ts';
import { negotiateLocale, SUPPORTED_LOCALES } from '../../src/i18n/locales.ts';

/**
 * Every group file of every locale (auth, http, validation, pages, mail, admin, … — whatever exists in
 * src/i18n/lang/en) must translate every English key, keep its placeholders, and not be an English copy.
 */

const langFolder = join(dirname(fileURLToPath(import.meta.url)), '../../src/i18n/lang');
const OTHER_LOCALES = SUPPORTED_LOCALES.filter((l) => l !== 'en');
const PLURAL = /_(zero|one|two|few|many|other)$/;

/**
 * Words spelled the same in English and the locale (cognates, loanwords, abbreviations). A value may
 * equal its English source only when it is made of these words alone; a sentence never may. Add a word
 * here when a real translation happens to be identical.
 */
const SAME_AS_ENGLISH: Record<string, readonly string[]> = {
  // "Guard" is the technical name of an authentication guard (web, admin, api), kept as in Laravel.
  de: [
    'API',
    'Administration',
    'Admin',
    'Details',
    'Guard',
    'ID',
    'Name',
    'Status',
    'Token',
    'Tokens',
    'Code',
    'Gatehouse',
    // The word German uses for them (Apple, Google and Microsoft alike).
    'Passkeys',
    'Webhooks',
    // An organization's role (docs/guides/organizations.md).
    'Administrator',
  ],
  fr: [
    'API',
    'Administration',
    'Actions',
    'Application',
    'Action',
    'E-mail',
    'ID',
    'Pages',
    'Message',
    'Code',
    'Date',
    'Total',
    'Via',
    'Gatehouse',
    'Webhooks',
    // The account area's "Sessions" (of browsers): the French word.
    'Sessions',
    'Invitation',
  ],
  es: [
    'API',
    'Guard',
    'ID',
    'token',
    'tokens',
    'Token',
    'Tokens',
    'Error',
    'Total',
    'Gatehouse',
    'Webhooks',
    'Roles',
  ],
};

function leaves(tree: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(tree as Record<string, unknown>)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of leaves(value, `${prefix}${key}.`)) out.set(k, v);
    } else {
      out.set(`${prefix}${key}`, value);
    }
  }
  return out;
}

/** The distinct {{names}} of a message: a translation may use one twice or once, but not drop or invent one. */
const placeholders = (value: string) =>
  [...new Set([...value.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]))].sort();
const english = leaves(loadCatalog('en'));

test('every locale has the same group files as en', () => {
  const groups = readdirSync(join(langFolder, 'en')).sort();
  assert.ok(groups.includes('auth.json') && groups.includes('pages.json'));
  for (const locale of OTHER_LOCALES) {
    assert.deepEqual(readdirSync(join(langFolder, locale)).sort(), groups, `${locale} group files`);
  }
});

for (const locale of OTHER_LOCALES) {
  test(`${locale}: every English key is present, translated and keeps its placeholders`, () => {
    const catalog = leaves(loadCatalog(locale));
    const problems: string[] = [];
    for (const [key, source] of english) {
      const value = catalog.get(key);
      if (typeof source !== 'string') {
        problems.push(`en ${key} is not a string`);
        continue;
      }
      if (typeof value !== 'string' || value.trim() === '') {
        problems.push(`missing ${locale} ${key}`);
        continue;
      }
      if (JSON.stringify(placeholders(value)) !== JSON.stringify(placeholders(source))) {
        problems.push(`${locale} ${key} placeholders ${placeholders(value)} ≠ en ${placeholders(source)}`);
      }
      if (value === source) {
        const words = value
          .replace(/\{\{[^}]*\}\}/g, ' ')
          .split(/[^\p{L}\p{N}-]+/u)
          .filter(Boolean);
        if (!words.every((word) => SAME_AS_ENGLISH[locale]!.includes(word))) {
          problems.push(`${locale} ${key} is still English: "${value}"`);
        }
      }
    }
    for (const key of catalog.keys()) {
      const base = key.replace(PLURAL, '');
      const known = english.has(key) || (base !== key && english.has(`${base}_other`));
      if (!known) problems.push(`${locale} ${key} has no English source (typo or stale key?)`);
    }
    assert.deepEqual(problems, []);
  });
}

test('the Laravel wording of the key messages', () => {
  const t = (locale: string) => createI18n('en', 'en').translator(locale);
  assert.equal(t('en')('auth.failed'), 'These credentials do not match our records.');
  assert.equal(
    t('de')('auth.failed'),
    'Diese Kombination aus Zugangsdaten wurde nicht in unserer Datenbank gefunden.',
  );
  assert.equal(t('fr')('auth.failed'), 'Ces identifiants ne correspondent pas à nos enregistrements.');
  assert.equal(t('es')('auth.failed'), 'Estas credenciales no coinciden con nuestros registros.');
  assert.equal(
    t('de')('auth.throttle', { seconds: 42 }),
    'Zu viele Loginversuche. Versuchen Sie es bitte in 42 Sekunden nochmal.',
  );
  assert.equal(t('fr')('validation.summary_more', { count: 2 }), '(et 2 erreurs de plus)');
  assert.equal(t('de')('validation.summary_more', { count: 1 }), '(und 1 weiterer Fehler)');
});

test('a key missing in a locale falls back to APP_FALLBACK_LOCALE, not to the key', () => {
  const catalogs: Record<string, Record<string, unknown>> = {
    en: { pages: { only_en: 'English', both: 'Both (en)' } },
    de: { pages: { both: 'Beide' } },
    fr: { pages: { only_en: 'Français (repli)', both: 'Les deux' } },
    es: { pages: { both: 'Ambos' } },
  };
  const i18n = createI18n('de', 'fr', (locale) => catalogs[locale]!);
  assert.equal(i18n.translator('de')('pages.both'), 'Beide');
  assert.equal(i18n.translator('de')('pages.only_en'), 'Français (repli)');
  assert.equal(i18n.translator('es')('pages.only_en'), 'Français (repli)');
  assert.equal(i18n.defaultLocale, 'de');
});

test('negotiation order: ?lang → cookie → Accept-Language → APP_LOCALE', () => {
  const pick = (input: Parameters<typeof negotiateLocale>[0]) => negotiateLocale(input, 'fr');
  assert.deepEqual(pick({ query: 'de', cookie: 'es', acceptLanguage: 'en' }), {
    locale: 'de',
    fromQuery: true,
  });
  assert.deepEqual(pick({ query: 'xx', cookie: 'es', acceptLanguage: 'en' }), {
    locale: 'es',
    fromQuery: false,
  });
  assert.deepEqual(pick({ cookie: 'zz', acceptLanguage: 'it, de-CH;q=0.8, en;q=0.9' }), {
    locale: 'en',
    fromQuery: false,
  });
  assert.equal(pick({ acceptLanguage: 'es-MX,es;q=0.9' }).locale, 'es');
  assert.equal(pick({ acceptLanguage: 'de;q=0, it' }).locale, 'fr', 'q=0 means "not this one"');
  assert.equal(pick({ acceptLanguage: 'it, pt' }).locale, 'fr');
  assert.equal(pick({}).locale, 'fr');
  assert.equal(pick({ query: 'de<script>' }).locale, 'fr', 'junk is ignored, not echoed');
});

test("ui_locales: the first supported tag, after the person's own choice and before Accept-Language", () => {
  const pick = (input: Parameters<typeof negotiateLocale>[0]) => negotiateLocale(input, 'fr').locale;
  assert.equal(pick({ uiLocales: 'it de-CH es', acceptLanguage: 'en' }), 'de');
  assert.equal(pick({ uiLocales: 'zh-Hant-TW es-419' }), 'es');
  assert.equal(pick({ uiLocales: 'it pt', acceptLanguage: 'en' }), 'en', 'none supported: as before');
  assert.equal(pick({ uiLocales: 'de', cookie: 'es' }), 'es');
  assert.equal(pick({ uiLocales: 'de', query: 'en' }), 'en');
  assert.equal(pick({ uiLocales: 'x-de <de>' }), 'fr', 'junk is ignored');
});
