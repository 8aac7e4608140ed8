import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DAY, fakeClock } from '../../src/lib/clock.ts';
import { signedInAdmin } from '../helpers/account.ts';
import { describeApp, type TestApp } from '../helpers/app.ts';
import type { Browser } from '../helpers/browser-session.ts';
import { startWebhookReceiver, webhookSecret } from '../helpers/webhook-receiver.ts';

/**
 * The panel's webhook page (docs/guides/webhooks.md): recent deliveries with event, endpoint, attempts, last
 * status and next try, and Retry (CSRF, audited) for one that was given up — it then arrives with the
 * webhook-id it always had.
 */
const secret = webhookSecret();
const receiver = await startWebhookReceiver(secret, { path: '/hooks?signing=query-secret' });
await receiver.stop();
after(() => receiver.close());
const clock = fakeClock(Date.now());

/** The delivery row `id` as stored now. */
const stored = (t: TestApp, id: number) =>
  t.db.selectFrom('webhook_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

await describeApp(
  'admin panel: webhook deliveries',
  (ctx) => {
    let t: TestApp;
    let panel: Browser;
    let adminId: number;
    let rowId: number;
    let rowType: string;
    before(async () => {
      t = ctx();
      ({
        browser: panel,
        admin: { id: adminId },
      } = await signedInAdmin(t));
      // The receiver serves every dialect's suite in turn: down again, and forgetful.
      await receiver.stop();
      receiver.forget();
    });

    test('a delivery the receiver never took is retried for days, then given up, listed with its error', async () => {
      const user = await t.createUser();
      await t.issueToken(user.email, user.password);
      const worker = t.services.webhooks.worker!;
      await worker.drain();
      const rows = await t.db.selectFrom('webhook_outbox').selectAll().orderBy('id').execute();
      assert.deepEqual(rows.map((r) => r.type).sort(), ['token.created', 'user.login']);
      // The first row met a refused connection; the endpoint's other row was not tried against a
      // dead endpoint (no attempt counted), only rescheduled.
      const tried = rows.find((r) => r.attempts === 1)!;
      const skipped = rows.find((r) => r.attempts === 0)!;
      assert.ok(tried && skipped, JSON.stringify(rows));
      rowId = tried.id;
      rowType = tried.type;
      for (const row of [tried, skipped]) {
        assert.match(row.last_error!, /^connection failed/);
        assert.equal(row.last_status, null);
        assert.equal(row.locked_until, null);
        assert.ok(
          row.available_at > clock.now() && row.available_at <= clock.now() + 10_000,
          'next try within 10 s',
        );
      }

      clock.advance(4 * DAY);
      await worker.drain();
      const gaveUp = await stored(t, rowId);
      assert.notEqual(gaveUp.failed_at, null);
      assert.notEqual(gaveUp.payload, '', 'kept for a retry from the panel');
      clock.set(Date.now());

      const page = await panel.get('/admin/webhooks');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<h1>Webhooks<\/h1>/);
      assert.ok(page.body.includes(rowType));
      assert.match(page.body, /Given up/);
      assert.match(page.body, /connection failed/);
      assert.ok(page.body.includes(`http://127.0.0.1:${receiver.port}/hooks`), 'the endpoint is listed');
      assert.ok(!page.body.includes('query-secret'), 'never its query string');
      assert.match(page.body, new RegExp(`action="/admin/webhooks/${rowId}/retry"`));
      const german = await panel.get('/admin/webhooks?lang=de');
      assert.match(german.body, /Aufgegeben/);
      await panel.get('/admin/webhooks?lang=en');
    });

    test('Retry needs the CSRF token, is audited, and the event arrives with its original webhook-id', async () => {
      const before = await stored(t, rowId);
      const forged = await t.app.inject({
        method: 'POST',
        url: `/admin/webhooks/${rowId}/retry`,
        headers: { cookie: panel.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: '_token=wrong',
      });
      assert.equal(forged.statusCode, 419);
      await receiver.start();
      const retried = await panel.post(`/admin/webhooks/${rowId}/retry`);
      assert.equal(retried.statusCode, 302);
      assert.equal(retried.headers.location, '/admin/webhooks');
      assert.match(
        (await panel.get('/admin/webhooks')).body,
        new RegExp(`Delivery #${rowId} will be tried again now\\.`),
      );
      const audit = await t.db
        .selectFrom('audit_log')
        .selectAll()
        .where('event', '=', 'admin.webhook.retried')
        .executeTakeFirstOrThrow();
      assert.equal(audit.actor_id, adminId);
      assert.deepEqual(JSON.parse(audit.details!), {
        delivery_id: rowId,
        webhook_id: before.message_id,
        type: rowType,
      });
      await t.services.webhooks.worker!.drain();
      const arrived = await receiver.waitFor((e) => e.id === before.message_id);
      assert.equal(arrived.type, rowType);
      const after = await stored(t, rowId);
      assert.notEqual(after.sent_at, null);
      assert.equal(after.last_status, 204);

      const again = await panel.postJson(`/admin/webhooks/${rowId}/retry`, {});
      assert.equal(again.statusCode, 409);
      assert.deepEqual(again.json(), { message: `Delivery #${rowId} has already been delivered.` });
      for (const id of ['999999', 'abc', '0']) {
        assert.equal((await panel.postJson(`/admin/webhooks/${id}/retry`, {})).statusCode, 404, id);
      }
      const guest = await t.app.inject({ url: '/admin/webhooks' });
      assert.equal(guest.statusCode, 302);
      assert.equal(guest.headers.location, '/admin/login');
    });
  },
  {
    env: { WEBHOOK_URLS: receiver.url, WEBHOOK_SECRET: secret },
    overrides: { clock, webhooks: { pollIntervalMs: 60_000 } },
  },
);
