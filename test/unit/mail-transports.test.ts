import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createI18n } from '../../src/i18n/i18n.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { resetPasswordMessage, testMessage } from '../../src/mail/messages.ts';
import { DeliveryError, type MailLog } from '../../src/mail/transport.ts';
import { TEST_APP_KEY } from '../helpers/app.ts';
import { parseMime } from '../helpers/mime.ts';
import { extractLinks, freePort, startSmtpSink } from '../helpers/smtp-sink.ts';

const storage = mkdtempSync(join(tmpdir(), 'gatehouse-mail-'));
after(() => rmSync(storage, { recursive: true, force: true }));

const i18n = createI18n('en', 'en');
const brand = { appName: 'Gatehouse', appUrl: 'http://gatehouse.test' };

function config(env: Record<string, string>) {
  return loadConfig(
    { APP_KEY: TEST_APP_KEY, APP_URL: brand.appUrl, STORAGE_PATH: storage, ...env },
    { readDotEnv: false },
  );
}

function capture(): MailLog & { lines: string[] } {
  const lines: string[] = [];
  const write = (details: object, message: string) =>
    lines.push(JSON.stringify({ ...details, msg: message }));
  return { lines, info: write, warn: write, error: write };
}

test('smtp mailer delivers a multipart/alternative mail with the configured sender', async () => {
  const sink = await startSmtpSink();
  try {
    const mailer = createMailer(
      config({ ...sink.env, MAIL_FROM_ADDRESS: 'noreply@gatehouse.test', MAIL_FROM_NAME: 'Gate House' }),
      capture,
    );
    const message = resetPasswordMessage(
      { brand, i18n },
      { email: 'ada@example.com', name: 'Ada Lovelace', locale: 'de' },
      'T0k3n',
      60,
    );
    const result = await mailer.send(message);
    assert.deepEqual(result.accepted, ['ada@example.com']);
    assert.match(result.response, /^250/);
    const mail = await sink.waitForMail();
    assert.deepEqual(mail.envelope, { from: 'noreply@gatehouse.test', to: ['ada@example.com'] });
    assert.equal(mail.subject, 'Benachrichtigung zum Zurücksetzen des Passworts');
    assert.equal(mail.from, 'Gate House <noreply@gatehouse.test>');
    assert.equal(mail.to, 'Ada Lovelace <ada@example.com>');
    assert.equal(mail.header('auto-submitted'), 'auto-generated');
    assert.match(mail.header('content-type') ?? '', /^multipart\/alternative/);
    assert.ok(
      mail.text.includes(
        'Passwort zurücksetzen: http://gatehouse.test/reset-password/T0k3n?email=ada%40example.com',
      ),
    );
    assert.ok(
      mail.html.includes('href="http://gatehouse.test/reset-password/T0k3n?email=ada%40example.com"'),
    );
    assert.ok(
      extractLinks(mail).includes('http://gatehouse.test/reset-password/T0k3n?email=ada%40example.com'),
    );
    mailer.close();
  } finally {
    await sink.close();
  }
});

test('smtp mailer authenticates when MAIL_USERNAME is set; wrong password is a one-line error', async () => {
  const sink = await startSmtpSink({ auth: { user: 'mailer', pass: 's3cret' } });
  try {
    const good = createMailer(
      config({ ...sink.env, MAIL_USERNAME: 'mailer', MAIL_PASSWORD: 's3cret' }),
      capture,
    );
    await good.send(testMessage({ brand, i18n }, { email: 'ops@example.com', locale: 'en' }));
    assert.equal((await sink.waitForMail()).authUser, 'mailer');
    const bad = createMailer(
      config({ ...sink.env, MAIL_USERNAME: 'mailer', MAIL_PASSWORD: 'wrong' }),
      capture,
    );
    await assert.rejects(
      bad.send(testMessage({ brand, i18n }, { email: 'ops@example.com', locale: 'en' })),
      (error) => {
        assert.ok(error instanceof DeliveryError);
        assert.equal(error.code, 'EAUTH');
        assert.ok(!error.message.includes('\n'));
        return true;
      },
    );
  } finally {
    await sink.close();
  }
});

test('a refused recipient is a permanent failure; a dead server is a connection-level one', async () => {
  const sink = await startSmtpSink({
    rejectRecipient: (address) =>
      address.startsWith('gone') ? { code: 550, message: 'No such user' } : null,
  });
  try {
    const mailer = createMailer(config(sink.env), capture);
    await assert.rejects(
      mailer.send(testMessage({ brand, i18n }, { email: 'gone@example.com', locale: 'en' })),
      (error) => {
        assert.ok(error instanceof DeliveryError);
        assert.equal(error.responseCode, 550);
        assert.equal(error.permanent, true);
        return true;
      },
    );
  } finally {
    await sink.close();
  }
  const port = await freePort();
  const dead = createMailer(config({ ...sink.env, MAIL_PORT: String(port) }), capture);
  const started = Date.now();
  await assert.rejects(
    dead.send(testMessage({ brand, i18n }, { email: 'a@example.com', locale: 'en' })),
    (error) => {
      assert.ok(error instanceof DeliveryError);
      assert.equal(error.connectionLevel, true);
      assert.equal(error.permanent, false);
      return true;
    },
  );
  assert.ok(Date.now() - started < 5000);
});

test('CR/LF in names never injects headers or recipients over real SMTP', async () => {
  const sink = await startSmtpSink();
  try {
    const mailer = createMailer(config({ ...sink.env, MAIL_FROM_NAME: 'Gatehouse' }), capture);
    const names = [
      'Eve\r\nBcc: victim@example.com',
      'Eve\nSubject: pwned',
      'Eve\r\n\r\n<html>body injection',
      'Évé "quoted" <evil@example.com>, other@example.com',
    ];
    for (const name of names) {
      await mailer.send(testMessage({ brand, i18n }, { email: 'eve@example.com', name, locale: 'en' }));
    }
    const mails = await sink.waitForMails(names.length);
    for (const mail of mails) {
      assert.deepEqual(mail.envelope.to, ['eve@example.com'], 'no extra recipient');
      const head = mail.raw.split(/\r?\n\r?\n/)[0]!;
      assert.doesNotMatch(head, /^bcc:/im);
      assert.equal(head.match(/^subject:/gim)?.length, 1);
      assert.equal(head.match(/^to:/gim)?.length, 1);
      assert.match(mail.subject, /^Test message from Gatehouse$/);
      assert.match(mail.to, /<eve@example\.com>$/);
    }
    assert.ok(mails[3]!.to.includes('Évé'), 'non-ASCII names survive, encoded');
    await assert.rejects(
      mailer.send({
        ...testMessage({ brand, i18n }, { email: 'eve@example.com', locale: 'en' }),
        to: { address: 'eve@example.com\r\nBcc: victim@example.com' },
      }),
      /Unsafe mail header/,
    );
    await assert.rejects(
      mailer.send({
        ...testMessage({ brand, i18n }, { email: 'eve@example.com', locale: 'en' }),
        subject: 'x\r\nBcc: v@example.com',
      }),
      /Unsafe mail header/,
    );
    assert.equal(sink.mails.length, names.length, 'refused messages never reached SMTP');
  } finally {
    await sink.close();
  }
});

test('log mailer writes the whole message as a 0600 .eml and logs it without link secrets', async () => {
  const log = capture();
  const mailer = createMailer(config({}), () => log);
  const message = resetPasswordMessage(
    { brand, i18n },
    { email: 'ada@example.com', locale: 'fr' },
    'SeCrEtToKeN123',
    60,
  );
  const result = await mailer.send(message);
  assert.ok(result.file?.startsWith(join(storage, 'mail')));
  const files = readdirSync(join(storage, 'mail'));
  assert.equal(files.length, 1);
  const file = join(storage, 'mail', files[0]!);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const eml = parseMime(readFileSync(file));
  assert.equal(eml.headers.get('subject')?.[0], 'Notification de réinitialisation du mot de passe');
  assert.ok(readFileSync(file, 'latin1').length > 500);
  assert.equal(log.lines.length, 1);
  const line = log.lines[0]!;
  assert.ok(!line.includes('SeCrEtToKeN123'), 'token never in the log line');
  assert.ok(line.includes('/reset-password/[redacted]'));
  assert.ok(line.includes(files[0]!), 'the log line names the .eml file');
});

test('with APP_URL=http://localhost:3000 and no MAIL_FROM_ADDRESS, mail is delivered, not dropped', async () => {
  const sink = await startSmtpSink();
  try {
    const log = capture();
    const mailer = createMailer(config({ ...sink.env, APP_URL: 'http://localhost:3000' }), () => log);
    await mailer.send(testMessage({ brand, i18n }, { email: 'ada@example.com', locale: 'en' }));
    const mail = await sink.waitForMail((m) => m.envelope.to[0] === 'ada@example.com');
    assert.equal(mail.envelope.from, 'no-reply@localhost.localdomain');
    assert.deepEqual(
      log.lines.filter((l) => /warn|refused/i.test(l)),
      [],
    );
  } finally {
    await sink.close();
  }
});
