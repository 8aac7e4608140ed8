import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { endpointHash } from '../../src/webhooks/webhook-outbox.ts';
import { createTestApp, describeApp, describeEachDialect, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/process.ts';
import { startWebhookReceiver, type WebhookReceiver, webhookSecret } from '../helpers/webhook-receiver.ts';

/**
 * Delivery under trouble (docs/guides/webhooks.md), on every dialect, with retries shortened to tenths of a second:
 * an endpoint that fails, then refuses connections, then recovers gets every event later with the id it
 * was first sent with; a redirect is not followed; an endpoint that never answers times out, and never
 * holds back the other endpoint.
 */
const secret = webhookSecret();
const flaky = await startWebhookReceiver(secret, { path: '/flaky' });
const steady = await startWebhookReceiver(secret, { path: '/steady' });
const elsewhere = await startWebhookReceiver(secret, { path: '/elsewhere' });
after(() => Promise.all([flaky, steady, elsewhere].map((r) => r.close())));

/** Causes two events (user.login, token.created) for a new user; gives their webhook-ids. */
async function twoEvents(t: TestApp): Promise<string[]> {
  const user = await t.createUser();
  const before = await t.db
    .selectFrom('webhook_events')
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .execute();
  await t.issueToken(user.email, user.password);
  // Written with the change; the worker hands each to the endpoints a moment later.
  const rows = await t.db
    .selectFrom('webhook_events')
    .select('message_id')
    .where('id', '>', before[0]?.id ?? 0)
    .execute();
  assert.equal(rows.length, 2);
  return rows.map((r) => r.message_id);
}

const rowsOf = (t: TestApp, ids: readonly string[], endpoint: WebhookReceiver) =>
  t.db
    .selectFrom('webhook_outbox')
    .selectAll()
    .where('message_id', 'in', [...ids])
    .where('endpoint_hash', '=', endpointHash(endpoint.url))
    .execute();

type Row = Awaited<ReturnType<typeof rowsOf>>[number];

/** Waits until the rows of `ids` for `endpoint` satisfy `ready`; gives them. */
const rowsWhen = (
  t: TestApp,
  ids: readonly string[],
  endpoint: WebhookReceiver,
  ready: (rows: Row[]) => boolean,
  what: string,
) =>
  eventually(
    async () => {
      // Every event has its delivery row once the worker handed it to the endpoints.
      const rows = await rowsOf(t, ids, endpoint);
      return rows.length === ids.length && ready(rows) ? rows : undefined;
    },
    10_000,
    what,
  );

/** Waits until `receiver` accepted every one of `ids`. */
const received = (receiver: WebhookReceiver, ids: readonly string[], timeoutMs = 15_000) =>
  receiver.waitFor(
    () => ids.every((id) => receiver.events.some((e) => e.id === id)),
    timeoutMs,
    `${ids.length} events`,
  );

await describeApp(
  'webhook delivery: failures, outages, redirects, timeouts',
  (ctx) => {
    let t: TestApp;
    before(async () => {
      t = ctx();
      for (const receiver of [flaky, steady, elsewhere]) {
        await receiver.start().catch(() => {});
        receiver.forget();
      }
      t.services.webhooks.worker!.start();
    });

    test('failing, then down, then back: every event arrives later, with the id of its first attempt', async () => {
      flaky.mode = { status: 503 };
      const ids = [...(await twoEvents(t)), ...(await twoEvents(t)), ...(await twoEvents(t))];
      // The steady endpoint is not held back by the failing one.
      await received(steady, ids, 5000);
      await eventually(
        () => (ids.every((id) => flaky.requests.filter((r) => r.id === id).length >= 2) ? true : undefined),
        10_000,
        'two failed attempts per event',
      );
      await flaky.stop();
      await rowsWhen(
        t,
        ids,
        flaky,
        (rows) => rows.every((r) => r.last_error?.startsWith('connection failed') === true),
        'attempts against a closed port',
      );
      flaky.mode = { status: 204 };
      await flaky.start();
      await received(flaky, ids);
      for (const id of ids) {
        assert.equal(flaky.events.filter((e) => e.id === id).length, 1, `${id} accepted once`);
        assert.ok(
          flaky.requests.filter((r) => r.id === id).every((r) => r.verified),
          'every attempt signed',
        );
      }
      // The receiver answered; the worker records that a moment later.
      const rows = await rowsWhen(
        t,
        ids,
        flaky,
        (found) => found.every((r) => r.sent_at !== null),
        'recorded',
      );
      assert.equal(rows.length, ids.length);
      for (const row of rows) {
        assert.notEqual(row.sent_at, null);
        assert.equal(row.last_status, 204);
        assert.ok(row.attempts >= 3, `${row.attempts} attempts`);
      }
      assert.deepEqual(
        flaky.events
          .filter((e) => ids.includes(e.id))
          .map((e) => e.type)
          .sort(),
        ['token.created', 'token.created', 'token.created', 'user.login', 'user.login', 'user.login'],
      );
    });

    test('a redirect is not followed: the attempt fails with its status, the other URL hears nothing', async () => {
      flaky.mode = { redirect: elsewhere.url };
      const ids = await twoEvents(t);
      const [row] = await rowsWhen(
        t,
        ids,
        flaky,
        (rows) => rows.every((r) => r.last_status === 302),
        'a 302',
      );
      assert.match(row!.last_error!, /^HTTP 302 \(redirects are not followed\)$/);
      assert.equal(row!.sent_at, null);
      assert.equal(elsewhere.requests.length, 0, 'nothing reached the redirect target');
      flaky.mode = { status: 204 };
      await received(flaky, ids);
    });

    test('an endpoint that never answers times out (WEBHOOK_TIMEOUT) and does not hold back the other', async () => {
      flaky.mode = { hang: true };
      const ids = await twoEvents(t);
      await received(steady, ids, 5000);
      // Had the hanging endpoint held the other back, its first timeout would be recorded by now.
      const waiting = await rowsOf(t, ids, flaky);
      assert.ok(
        waiting.every((r) => r.last_error === null && r.sent_at === null),
        'the steady endpoint got both events while the other was still waiting for an answer',
      );
      await rowsWhen(
        t,
        ids,
        flaky,
        (rows) => rows.some((r) => r.last_error === 'timed out after 1 s'),
        'a timeout',
      );
      flaky.mode = { status: 204 };
      await flaky.stop();
      await flaky.start();
      await received(flaky, ids);
    });
  },
  {
    env: {
      WEBHOOK_URLS: [flaky.url, steady.url].join(','),
      WEBHOOK_SECRET: secret,
      WEBHOOK_TIMEOUT: '1',
    },
    overrides: { webhooks: { pollIntervalMs: 50, retryBaseMs: 300, retryMaxMs: 600 } },
  },
);

describe('a graceful stop while an endpoint hangs', () => {
  test('does not wait for the timeout: the delivery is cut short and handed back, due at once', async () => {
    const hanging = await startWebhookReceiver(secret, { path: '/hang' });
    hanging.mode = { hang: true };
    const t = await createTestApp('sqlite', {
      env: { WEBHOOK_URLS: hanging.url, WEBHOOK_SECRET: secret, WEBHOOK_TIMEOUT: '30' },
    });
    try {
      const worker = t.services.webhooks.worker!;
      worker.start();
      const ids = await twoEvents(t);
      // The endpoint's first event hangs; the second waits behind it.
      await eventually(
        () => (hanging.requests.some((r) => ids.includes(r.id)) ? true : undefined),
        5000,
        'a request',
      );
      const started = Date.now();
      await worker.stop();
      assert.ok(Date.now() - started < 3000, `stopped in ${Date.now() - started} ms, not after 30 s`);
      const rows = await t.db.selectFrom('webhook_outbox').selectAll().execute();
      assert.ok(rows.every((r) => r.sent_at === null && r.failed_at === null && r.locked_until === null));
      assert.ok(
        rows.every((r) => r.attempts === 0),
        'an interrupted attempt is not counted',
      );
    } finally {
      await t.close();
      await hanging.close();
    }
  });
});

// On every database: what a failed transaction leaves behind (PostgreSQL aborts it, MariaDB does not) is
// what this decides, and it is the fan-out's own transaction, not a repository's statement.
await describeEachDialect(
  'handing events to the endpoints: one that cannot be handed out holds back no other',
  (ctx) => {
    test('its transaction fails: the others are delivered, it is tried again later and then delivered', async () => {
      const t = ctx();
      const endpoint = endpointHash(steady.url);
      await steady.start().catch(() => {});
      steady.forget();
      const [blocked, other] = await twoEvents(t);
      // A delivery row already holds the first event's id for this endpoint: its hand-out fails.
      const inTheWay = {
        message_id: blocked!,
        type: 'user.login',
        endpoint_hash: endpoint,
        endpoint: 'in the way',
        payload: '',
        attempts: 0,
        available_at: Date.now() + 3_600_000,
        locked_until: null,
        sent_at: null,
        failed_at: null,
        last_status: null,
        last_error: null,
        created_at: Date.now(),
      };
      await t.db.insertInto('webhook_outbox').values(inTheWay).execute();
      const worker = t.services.webhooks.worker!;
      await worker.drain();
      await received(steady, [other!]);
      const event = await t.db
        .selectFrom('webhook_events')
        .selectAll()
        .where('message_id', '=', blocked!)
        .executeTakeFirstOrThrow();
      assert.equal(event.sent_at, null);
      assert.equal(event.locked_until, null, 'not left leased');
      assert.ok(event.available_at > Date.now(), 'tried again after a backoff');
      assert.match(event.last_error ?? '', /^hand-out failed/);
      assert.notEqual(event.payload, '', 'the event is kept whole');
      // The row out of the way and the retry due: it goes out like any other.
      await t.db.deleteFrom('webhook_outbox').where('endpoint', '=', 'in the way').execute();
      await t.db
        .updateTable('webhook_events')
        .set({ available_at: Date.now() })
        .where('message_id', '=', blocked!)
        .execute();
      await worker.drain();
      await received(steady, [blocked!]);
    });
  },
  { env: { WEBHOOK_URLS: steady.url, WEBHOOK_SECRET: secret } },
);
