import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeApp } from '../helpers/app.ts';
import { Browser } from '../helpers/browser-session.ts';
import { freePort, startSmtpSink } from '../helpers/smtp-sink.ts';

const port = await freePort();
const PASSWORD = 'saffron-glacier-beacon-3';

await describeApp(
  'SMTP outage',
  (ctx, dialect) => {
    test('users register and ask for resets while SMTP is down; every mail arrives once when it is back', async () => {
      const app = ctx();
      app.services.outbox.start();
      const existing = await Promise.all(Array.from({ length: 5 }, () => app.createUser()));
      const newcomers = Array.from({ length: 5 }, (_, i) => `newcomer${i}-${dialect}@example.com`);
      const durations: number[] = [];
      const timed = async <T>(work: () => Promise<T>): Promise<T> => {
        const started = performance.now();
        const result = await work();
        durations.push(performance.now() - started);
        return result;
      };

      for (const email of newcomers) {
        const browser = new Browser(app.app);
        await browser.get('/register');
        const response = await timed(() =>
          browser.post('/register', {
            name: 'New Comer',
            email,
            password: PASSWORD,
            password_confirmation: PASSWORD,
          }),
        );
        assert.equal(response.statusCode, 302);
        assert.equal(response.headers.location, '/dashboard');
      }
      for (const user of existing) {
        const browser = new Browser(app.app);
        await browser.get('/forgot-password');
        const response = await timed(() => browser.postJson('/forgot-password', { email: user.email }));
        assert.equal(response.statusCode, 200);
      }
      assert.ok(Math.max(...durations) < 1000, `every request is prompt: ${durations.map(Math.round)}`);

      // The worker has tried and failed by now; nothing is lost, nothing is marked sent.
      await new Promise((resolve) => setTimeout(resolve, 700));
      const pending = await app.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('sent_at', 'is', null)
        .execute();
      assert.equal(pending.length, 10);
      assert.ok(pending.some((row) => row.attempts >= 1 && row.last_error !== null));
      for (const row of pending) assert.doesNotMatch(row.last_error ?? '', /reset-password|signature/);

      const sink = await startSmtpSink({ port });
      try {
        const all = [...newcomers, ...existing.map((u) => u.email)];
        await sink.waitForMails(10, () => true, 15_000);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        for (const email of all) {
          assert.equal(sink.mails.filter((m) => m.envelope.to[0] === email).length, 1, email);
        }
        for (const email of newcomers) {
          assert.equal(sink.mails.find((m) => m.envelope.to[0] === email)!.subject, 'Verify Email Address');
        }
        for (const user of existing) {
          assert.equal(
            sink.mails.find((m) => m.envelope.to[0] === user.email)!.subject,
            'Reset Password Notification',
          );
        }
        assert.equal(sink.mails.length, 10);
        const left = await app.db
          .selectFrom('mail_outbox')
          .select('id')
          .where('sent_at', 'is', null)
          .execute();
        assert.equal(left.length, 0);
      } finally {
        await sink.close();
      }
    });
  },
  {
    env: { MAIL_MAILER: 'smtp', MAIL_HOST: '127.0.0.1', MAIL_PORT: String(port), MAIL_ENCRYPTION: 'none' },
    overrides: { outbox: { pollIntervalMs: 200, retryBaseMs: 300, retryMaxMs: 1000 } },
  },
);
