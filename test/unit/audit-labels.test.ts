import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AUDIT_EVENTS } from '../../src/audit/audit.ts';
import { SUPPORTED_LOCALES } from '../../src/i18n/locales.ts';
import { ROOT } from '../helpers/paths.ts';

/**
 * docs/reference/audit-actions.md, docs/guides/admin-panel.md: the panel's audit log names every action
 * in words, in every language — a raw `two_factor.recovery_codes_regenerated` is unreadable and, being
 * one long word, made the log scroll sideways on a phone.
 */
const catalog = (locale: string) =>
  JSON.parse(readFileSync(join(ROOT, 'src/i18n/lang', locale, 'admin.json'), 'utf8')) as {
    events: Record<string, string>;
  };

for (const locale of SUPPORTED_LOCALES) {
  test(`every audit action has a readable label in ${locale}`, () => {
    const { events } = catalog(locale);
    const missing = AUDIT_EVENTS.filter((event) => {
      const label = events[event.replace(/\./g, '_')];
      return typeof label !== 'string' || label.trim() === '' || label.includes('.') || label === event;
    });
    assert.deepEqual(missing, [], `labels missing in ${locale}/admin.json events`);
  });
}

test('every audit action is in docs/reference/audit-actions.md', () => {
  const doc = readFileSync(join(ROOT, 'docs/reference/audit-actions.md'), 'utf8');
  const missing = AUDIT_EVENTS.filter((event) => !doc.includes(`\`${event}\``));
  assert.deepEqual(missing, []);
});
