import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emailChangeMessage } from '../../src/account/mails.ts';
import { createI18n } from '../../src/i18n/i18n.ts';
import { MailHeaderError } from '../../src/mail/message.ts';
import {
  invitationMessage,
  type MailContext,
  passwordChangedMessage,
  resetPasswordMessage,
  testMessage,
  verifyEmailMessage,
} from '../../src/mail/messages.ts';
import { createPayloadCipher } from '../../src/mail/payload-cipher.ts';
import { extractLinks } from '../helpers/smtp-sink.ts';

const context: MailContext = {
  brand: { appName: 'Acme <Gate>', appUrl: 'https://auth.example.com/base' },
  i18n: createI18n('en', 'en'),
};

const SUBJECTS = {
  en: 'Reset Password Notification',
  de: 'Benachrichtigung zum Zurücksetzen des Passworts',
  fr: 'Notification de réinitialisation du mot de passe',
  es: 'Notificación de restablecimiento de contraseña',
};

test('every builder renders a text and an HTML part in each language, links only from APP_URL', () => {
  for (const locale of ['en', 'de', 'fr', 'es'] as const) {
    const to = { email: 'ada@example.com', name: 'Ada', locale };
    const messages = [
      verifyEmailMessage(context, to, {
        url: 'https://auth.example.com/base/email/verify/1/abc?expires=1&signature=f00d',
        signature: 'f00d',
        expiresInMinutes: 60,
      }),
      resetPasswordMessage(context, to, 'tok_EN-123', 60),
      passwordChangedMessage(context, to, Date.UTC(2026, 0, 2, 3, 4)),
      testMessage(context, to),
    ];
    for (const message of messages) {
      assert.equal(message.locale, locale);
      assert.ok(message.text.length > 50, `${message.kind} text part`);
      assert.match(message.html, /^<!doctype html>/);
      assert.ok(message.text.includes('Acme <Gate>'), 'app name in text');
      assert.ok(message.html.includes('Acme &lt;Gate&gt;'), 'app name escaped in HTML');
      assert.ok(!message.html.includes('<Gate>'));
      for (const link of extractLinks(message)) {
        const base = 'https://auth.example.com/base';
        assert.ok(link === base || link.startsWith(`${base}/`), `${message.kind}: ${link}`);
      }
    }
    const reset = messages[1]!;
    assert.equal(reset.subject, SUBJECTS[locale]);
    assert.ok(
      reset.text.includes('https://auth.example.com/base/reset-password/tok_EN-123?email=ada%40example.com'),
    );
    assert.deepEqual(reset.secrets, ['tok_EN-123']);
    assert.ok(reset.text.includes('60'), 'expiry minutes are stated');
  }
});

test('a text part never asks to click a button (it has none): it says to open the link, spelled out below', () => {
  // The words the HTML parts use for their button, in each language.
  const button = /button|click|Schaltfläche|klicken|bouton|cliquer|botón|clic|pulse/i;
  for (const locale of ['en', 'de', 'fr', 'es'] as const) {
    const to = { email: 'ada@example.com', locale };
    const link = {
      url: 'https://auth.example.com/base/email/x?signature=f00d',
      signature: 'f00d',
      expiresInMinutes: 60,
    };
    const messages = [
      verifyEmailMessage(context, to, link),
      emailChangeMessage(context, to, link),
      resetPasswordMessage(context, to, 'tok', 60),
      passwordChangedMessage(context, to, Date.UTC(2026, 0, 2, 3, 4)),
      invitationMessage(context, to, 'tok', 60),
      testMessage(context, to),
    ];
    for (const message of messages) {
      assert.doesNotMatch(message.text, button, `${locale} ${message.kind}`);
    }
    assert.match(messages[0]!.html, button, `${locale}: the HTML part still has its button`);
    assert.equal(messages[0]!.action?.url, link.url, "the link a developer's terminal shows");
  }
});

test('German, French and Spanish mails are really translated', () => {
  const en = verifyEmailMessage(context, { email: 'a@example.com', locale: 'en' }, link());
  for (const locale of ['de', 'fr', 'es']) {
    const other = verifyEmailMessage(context, { email: 'a@example.com', locale }, link());
    assert.notEqual(other.subject, en.subject);
    assert.notEqual(other.text.split('\n')[2], en.text.split('\n')[2]);
  }
  const de = passwordChangedMessage(context, { email: 'a@example.com', locale: 'de' }, Date.UTC(2026, 2, 1));
  assert.match(de.text, /1\. März 2026/);
  const unknown = testMessage(context, { email: 'a@example.com', locale: 'xx' });
  assert.equal(unknown.locale, 'en');
});

test('names with CR/LF are flattened; addresses with CR/LF are refused', () => {
  const message = testMessage(context, {
    email: 'ada@example.com',
    name: 'Eve\r\nBcc: victim@example.com',
    locale: 'en',
  });
  assert.equal(message.to.name, 'Eve Bcc: victim@example.com');
  assert.throws(
    () => testMessage(context, { email: 'ada@example.com\r\nBcc: victim@example.com', locale: 'en' }),
    MailHeaderError,
  );
  assert.throws(
    () => testMessage(context, { email: 'ada@example.com, victim@example.com', locale: 'en' }),
    MailHeaderError,
  );
});

test('outbox payloads are sealed: round trip, tamper and foreign key are refused', () => {
  const cipher = createPayloadCipher(Buffer.alloc(32, 1));
  const sealed = cipher.seal('reset link https://x/reset-password/secret');
  assert.ok(!sealed.includes('secret'));
  assert.equal(cipher.open(sealed), 'reset link https://x/reset-password/secret');
  assert.notEqual(cipher.seal('same'), cipher.seal('same'), 'random IV per message');
  const parts = sealed.split('.');
  const body = Buffer.from(parts[2]!, 'base64url');
  body[0]! ^= 1;
  parts[2] = body.toString('base64url');
  assert.throws(() => cipher.open(parts.join('.')));
  assert.throws(() => createPayloadCipher(Buffer.alloc(32, 2)).open(sealed));
  assert.throws(() => cipher.open('v1.x'));
});

function link() {
  return {
    url: 'https://auth.example.com/base/email/verify/1/h?expires=1&signature=s',
    signature: 's',
    expiresInMinutes: 60,
  };
}
