import assert from 'node:assert/strict';
import { test } from 'node:test';
import i18next from 'i18next';
import { createI18n, loadCatalog } from '../../src/i18n/i18n.ts';
import { SUPPORTED_LOCALES } from '../../src/i18n/locales.ts';

// createI18n's translators memoise texts and fill simple {{name}} placeholders themselves (i18next's
// interpolation was the costliest part of a page). The output must be exactly i18next's, for every
// entry of every catalog and for values that look like syntax.

function reference(locale: string) {
  const instance = i18next.createInstance();
  void instance.init({
    resources: Object.fromEntries(SUPPORTED_LOCALES.map((l) => [l, { translation: loadCatalog(l) }])),
    lng: locale,
    fallbackLng: 'en',
    supportedLngs: [...SUPPORTED_LOCALES],
    initAsync: false,
    interpolation: { escapeValue: false },
    returnNull: false,
    showSupportNotice: false,
  });
  return instance.getFixedT(locale);
}

function entries(tree: Record<string, unknown>, prefix = ''): Array<[string, string]> {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string'
      ? [[`${prefix}${key}`, value] as [string, string]]
      : entries(value as Record<string, unknown>, `${prefix}${key}.`),
  );
}

// i18next re-scans the text after each value is put in, so a value that contains "{{other}}" gets the
// other placeholder's value and that placeholder keeps its braces — a user-chosen passkey name of
// "{{app}}" would rewrite a mail. Ours puts every value in as written, once: the reference renders the
// text with a neutral marker in place of such a value, then puts the value where the marker is.
const MARKER = '\u0001value\u0001';
function verbatim(
  expected: ReturnType<typeof reference>,
  key: string,
  values: Record<string, string | number>,
): string {
  const marked = Object.fromEntries(
    Object.entries(values).map(([n, v]) => [n, typeof v === 'string' && v.includes('{{') ? MARKER : v]),
  );
  const sample = Object.values(values).find((v) => typeof v === 'string' && v.includes('{{'));
  const text = expected(key, marked);
  return sample === undefined ? text : text.replaceAll(MARKER, () => String(sample));
}

const TRICKY = [' Zoë $& $1 $$ ', '{{name}} $t(pages.dashboard)', '<b>&amp;</b>', ''];

test('every catalog entry with placeholders reads exactly as i18next renders it', () => {
  const i18n = createI18n('en', 'en');
  let checked = 0;
  for (const locale of SUPPORTED_LOCALES) {
    const t = i18n.translator(locale);
    const expected = reference(locale);
    for (const [key, text] of entries(loadCatalog(locale))) {
      const names = [...text.matchAll(/{{\s*([A-Za-z0-9_]+)\s*}}/g)].map((m) => m[1]!);
      if (names.length === 0) continue;
      // Plural keys are asked for by their base name with a count, as the code does.
      const base = key.replace(/_(zero|one|two|few|many|other)$/, '');
      for (const [i, sample] of TRICKY.entries()) {
        const values = Object.fromEntries(names.map((n) => [n, n === 'count' ? i : sample]));
        assert.equal(
          t(base, values),
          verbatim(expected, base, values),
          `${locale} ${key} with ${JSON.stringify(values)}`,
        );
        checked++;
      }
      const numbers = Object.fromEntries(names.map((n, i) => [n, i + 0.5]));
      assert.equal(t(base, numbers), expected(base, numbers), `${locale} ${key} with numbers`);
    }
  }
  assert.ok(checked > 100, `only ${checked} placeholder entries checked`);
});

test('missing values, i18next options and repeated calls give i18next’s answer', () => {
  const t = createI18n('en', 'en').translator('de');
  const expected = reference('de');
  const cases: Array<[string, Record<string, unknown>]> = [
    ['validation.required', {}],
    ['validation.required', { attribute: undefined }],
    ['validation.required', { attribute: { nested: true } }],
    ['validation.required', { attribute: 'email', defaultValue: 'x' }],
    ['validation.required', { attribute: 'email', lng: 'fr' }],
    ['pages.welcome', { name: 'Ada' }],
    ['pages.welcome', { name: 'Grace' }],
    ['no.such.key', { name: 'Ada' }],
  ];
  for (const [key, values] of cases) {
    assert.equal(t(key, values), expected(key, values), `${key} ${JSON.stringify(values)}`);
  }
  assert.equal(t('pages.dashboard'), expected('pages.dashboard'));
  assert.equal(t('pages.dashboard'), expected('pages.dashboard'));
});
