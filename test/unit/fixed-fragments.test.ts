import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { fixed } from '../../src/http/views/fixed.ts';
import { createI18n } from '../../src/i18n/i18n.ts';
import type { Locale } from '../../src/i18n/locales.ts';
import { html } from '../../src/lib/html.ts';

/** Fragments rendered once per app and language must never show one app's or language's text in another. */
describe('fixed page fragments', () => {
  const i18n = createI18n('en', 'en');
  const server = (appName: string) => ({ services: { config: { appName }, i18n } });
  const request = (app: object, locale: Locale) =>
    ({ server: app, locale, t: i18n.translator(locale) }) as unknown as FastifyRequest;

  test('one render per app and locale, and each keeps its own text', () => {
    let renders = 0;
    const heading = fixed(({ t, appName }) => {
      renders++;
      return html`<h1>${t('pages.dashboard')} · ${appName}</h1>`;
    });
    const first = server('First & Co');
    const second = server('Second');
    assert.equal(heading(request(first, 'en')).value, '<h1>Dashboard · First &amp; Co</h1>');
    assert.equal(heading(request(first, 'en')).value, '<h1>Dashboard · First &amp; Co</h1>');
    assert.equal(renders, 1, 'kept for the same app and locale');
    assert.equal(heading(request(first, 'de')).value, '<h1>Übersicht · First &amp; Co</h1>');
    assert.equal(heading(request(second, 'en')).value, '<h1>Dashboard · Second</h1>');
    assert.equal(renders, 3, 'a render per (app, locale)');
  });

  test('a German reader gets the German fragment, an English one the English', () => {
    const label = fixed(({ t }) => t('pages.log_in'));
    const app = server('App');
    assert.equal(label(request(app, 'de')), i18n.translator('de')('pages.log_in'));
    assert.equal(label(request(app, 'en')), i18n.translator('en')('pages.log_in'));
    assert.notEqual(label(request(app, 'de')), label(request(app, 'en')));
  });
});
