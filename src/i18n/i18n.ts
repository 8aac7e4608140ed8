import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import i18next, { type TFunction } from 'i18next';
import { asLocale, type Locale, SUPPORTED_LOCALES } from './locales.ts';
import { memoised } from './memoised-translator.ts';

export type Translate = TFunction;

const langFolder = join(dirname(fileURLToPath(import.meta.url)), 'lang');

/** lang/<locale>/<group>.json → { group: {...} }, so keys read like Laravel's: `auth.failed`. */
export function loadCatalog(locale: string): Record<string, unknown> {
  const folder = join(langFolder, locale);
  const catalog: Record<string, unknown> = {};
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.json'))) {
    catalog[file.replace(/\.json$/, '')] = JSON.parse(readFileSync(join(folder, file), 'utf8'));
  }
  return catalog;
}

export interface I18n {
  readonly locales: readonly Locale[];
  readonly defaultLocale: Locale;
  /** A translator fixed to one language (cached), falling back to the fallback locale per key. */
  translator(locale: string): Translate;
}

/**
 * `load` reads one locale's catalog; tests pass their own to check fallback with a key that the real
 * catalogs (complete in every locale, see test/unit/i18n-catalogs.test.ts) never miss.
 */
export function createI18n(
  defaultLocale: string,
  fallbackLocale: string,
  load: (locale: Locale) => Record<string, unknown> = loadCatalog,
): I18n {
  const instance = i18next.createInstance();
  const resources = Object.fromEntries(SUPPORTED_LOCALES.map((l) => [l, { translation: load(l) }]));
  void instance.init({
    resources,
    lng: defaultLocale,
    fallbackLng: fallbackLocale,
    supportedLngs: [...SUPPORTED_LOCALES],
    initAsync: false,
    // Output is escaped by the views, not here: JSON messages must not carry HTML entities.
    interpolation: { escapeValue: false },
    returnNull: false,
    showSupportNotice: false,
  });
  const translators = new Map<string, Translate>();
  return {
    locales: SUPPORTED_LOCALES,
    defaultLocale: asLocale(defaultLocale) ?? 'en',
    translator(locale) {
      let t = translators.get(locale);
      if (t === undefined) {
        t = memoised(instance.getFixedT(locale));
        translators.set(locale, t);
      }
      return t;
    },
  };
}
