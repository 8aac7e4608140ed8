import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { fakeClock } from '../../src/lib/clock.ts';
import { testMessage } from '../../src/mail/messages.ts';
import { createServices } from '../../src/services.ts';
import { countRows, describeEachDialect, type TestApp } from '../helpers/app.ts';
import { freePort, type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';

const port = await freePort();
/** The sink refuses gone*@ recipients for good (550), like a server that knows no such mailbox. */
const startSink = () =>
  startSmtpSink({
    port,
    rejectRecipient: (address) =>
      address.startsWith('gone') ? { code: 550, message: 'No such user' } : null,
  });
let sink: SmtpSink | null = await startSink();
after(() => sink?.close());
const clock = fakeClock(Date.UTC(2026, 5, 1));
const MINUTE = 60_000;

function message(
  services: { config: Config; i18n: ReturnType<typeof createServices>['i18n'] },
  email: string,
) {
  const brand = { appName: services.config.appName, appUrl: services.config.appUrl };
  return testMessage({ brand, i18n: services.i18n }, { email, locale: 'en' });
}

const outboxRow = (db: TestApp['db'], id: number) =>
  db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const mailsTo = (address: string) => sink!.mails.filter((m) => m.envelope.to.includes(address));
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

await describeEachDialect(
  'mail outbox',
  (ctx, dialect) => {
    test('a mail enqueued in a rolled-back transaction never leaves; a committed one leaves on wake', async () => {
      const { services, db } = ctx();
      services.outbox.start();
      const lost = `rolled-back-${dialect}@example.com`;
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await services.outbox.enqueue(trx, message(services, lost));
          throw new Error('use case failed');
        }),
      );
      const kept = `committed-${dialect}@example.com`;
      await db.transaction().execute((trx) => services.outbox.enqueue(trx, message(services, kept)));
      const started = Date.now();
      services.outbox.wake();
      // The poll interval is 60 s here: only the wake can deliver this quickly.
      await sink!.waitForMail((m) => m.envelope.to.includes(kept), 3000);
      assert.ok(Date.now() - started < 3000);
      await settle();
      assert.equal(mailsTo(lost).length, 0);
      assert.equal(mailsTo(kept).length, 1);
    });

    test('a caller that never calls wake() still gets its committed mail out without the poll', async () => {
      const { services, db } = ctx();
      const to = `unwoken-${dialect}@example.com`;
      await db.transaction().execute(async (trx) => {
        await services.outbox.enqueue(trx, message(services, to));
        // The use case goes on for a while before it commits.
        await new Promise((resolve) => setTimeout(resolve, 50));
      });
      await sink!.waitForMail((m) => m.envelope.to.includes(to), 5000);
    });

    test('payload is sealed at rest and wiped after sending', async () => {
      const { services, db } = ctx();
      const to = `sealed-${dialect}@example.com`;
      const id = await services.outbox.enqueue(db, message(services, to));
      const before = await outboxRow(db, id);
      assert.match(before.payload, /^v1\./);
      assert.ok(!before.payload.includes('Test message'));
      await services.outbox.drain();
      const row = await outboxRow(db, id);
      assert.equal(row.payload, '');
      assert.equal(row.sent_at, clock.now());
      assert.equal(row.attempts, 1);
      assert.equal(row.locked_until, null);
      assert.equal(mailsTo(to).length, 1);
    });

    test('SMTP outage: nothing lost, retried with backoff, each mail arrives exactly once', async () => {
      const { services, db } = ctx();
      await sink!.close();
      sink = null;
      const addresses = Array.from({ length: 6 }, (_, i) => `outage${i}-${dialect}@example.com`);
      for (const to of addresses) await services.outbox.enqueue(db, message(services, to));
      await services.outbox.drain();
      const failed = await db.selectFrom('mail_outbox').selectAll().where('sent_at', 'is', null).execute();
      assert.equal(failed.length, addresses.length);
      for (const row of failed) {
        assert.equal(row.attempts, 1);
        assert.ok(row.available_at > clock.now() && row.available_at <= clock.now() + 10_000);
        assert.match(row.last_error ?? '', /ECONNECTION|ESOCKET|ECONNREFUSED/);
        assert.equal(row.failed_at, null);
      }
      // Still down at the next attempt: the delay grows (exponential backoff).
      clock.advance(10_000);
      await services.outbox.drain();
      const second = await db.selectFrom('mail_outbox').selectAll().where('sent_at', 'is', null).execute();
      for (const row of second) {
        assert.equal(row.attempts, 2);
        assert.ok(row.available_at >= clock.now() + 10_000);
      }

      sink = await startSink();
      clock.advance(MINUTE);
      await services.outbox.drain();
      await services.outbox.drain();
      for (const to of addresses) assert.equal(mailsTo(to).length, 1, to);
      assert.equal(
        await db
          .selectFrom('mail_outbox')
          .select('id')
          .where('sent_at', 'is', null)
          .execute()
          .then((r) => r.length),
        0,
      );
    });

    test('a permanent refusal (5xx) is given up at once and recorded', async () => {
      const { services, db } = ctx();
      await sink!.close();
      sink = await startSink();
      const id = await services.outbox.enqueue(db, message(services, `gone-${dialect}@example.com`));
      await services.outbox.drain();
      clock.advance(2 * 60 * MINUTE);
      await services.outbox.drain();
      const row = await outboxRow(db, id);
      assert.equal(row.attempts, 1);
      assert.equal(row.sent_at, null);
      assert.ok(row.failed_at !== null);
      assert.equal(row.payload, '');
      assert.match(row.last_error ?? '', /550/);
    });

    test('two workers on one database deliver 40 mails exactly once', async () => {
      const { services, db, config } = ctx();
      const other = createServices(config, { clock, outbox: { batchSize: 3 } });
      try {
        const addresses = Array.from({ length: 40 }, (_, i) => `race${i}-${dialect}@example.com`);
        for (const to of addresses) await services.outbox.enqueue(db, message(services, to));
        await Promise.all([services.outbox.drain(), other.outbox.drain(), services.outbox.drain()]);
        await sink!.waitForMails(40, (m) => m.envelope.to[0]!.startsWith('race'));
        await settle();
        for (const to of addresses) assert.equal(mailsTo(to).length, 1, to);
        assert.ok((await countRows(db, 'mail_outbox')) >= 40);
      } finally {
        await other.close();
      }
    });
  },
  { env: sink.env, overrides: { clock, outbox: { pollIntervalMs: 60_000, batchSize: 4 } } },
);
