import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createI18n } from '../../src/i18n/i18n.ts';
import type { MailContext } from '../../src/mail/messages.ts';
import { passkeyNoticeMessage } from '../../src/passkeys/mails.ts';

const context: MailContext = {
  brand: { appName: 'Gatehouse', appUrl: 'https://auth.example.com' },
  i18n: createI18n('en', 'en'),
};
const at = Date.UTC(2026, 10, 27, 9, 30);

test('passkey notices: added and removed, in the user’s language, linking to the account page', () => {
  const subjects = {
    en: ['A passkey was added to your account', 'A passkey was removed from your account'],
    de: ['Ihrem Konto wurde ein Passkey hinzugefügt', 'Aus Ihrem Konto wurde ein Passkey entfernt'],
    fr: ['Une clé d’accès a été ajoutée à votre compte', 'Une clé d’accès a été retirée de votre compte'],
    es: ['Se añadió una llave de acceso a su cuenta', 'Se quitó una llave de acceso de su cuenta'],
  } as const;
  for (const [locale, [added, removed]] of Object.entries(subjects)) {
    const user = { email: 'ada@example.com', name: 'Ada', locale, emailVerifiedAt: at };
    const one = passkeyNoticeMessage(context, user, { event: 'added', passkeyName: 'YubiKey', at });
    const two = passkeyNoticeMessage(context, user, { event: 'removed', passkeyName: 'YubiKey', at });
    assert.equal(one.subject, added);
    assert.equal(two.subject, removed);
    for (const message of [one, two]) {
      assert.equal(message.kind, 'passkey-notice');
      assert.match(message.text, /YubiKey/);
      assert.match(message.text, /https:\/\/auth\.example\.com\/profile#passkeys/);
      assert.deepEqual(message.to, { address: 'ada@example.com', name: 'Ada' });
    }
  }
});

test('to an address not verified yet: neither the passkey name nor the display name', () => {
  const user = { email: 'ada@example.com', name: 'Ada <b>', locale: 'en', emailVerifiedAt: null };
  const message = passkeyNoticeMessage(context, user, {
    event: 'added',
    passkeyName: 'Visit evil.example',
    at,
  });
  assert.doesNotMatch(message.text + message.html, /evil\.example|Ada/);
  assert.deepEqual(message.to, { address: 'ada@example.com' });
  assert.match(message.text, /A passkey was added to your Gatehouse account/);
});
