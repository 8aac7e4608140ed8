import assert from 'node:assert/strict';
import { auditRowsOfUser, firstSubjectOf, forgetAddresses } from '../../../src/audit/audit.repository.ts';
import { dropUndelivered, insertOutboxRow } from '../../../src/mail/outbox.repository.ts';
import {
  dropUntakenEvents,
  findDelivery,
  giveUpUnlisted,
  insertWebhookEvent,
  insertWebhookRows,
  listDeliveries,
  requeueDelivery,
} from '../../../src/webhooks/webhook-outbox.repository.ts';
import { aUser, type ContractSuite, covers, hash64, uniqueEmail } from './contract.ts';

const delivery = (messageId: string, endpointHash: string, fields: Record<string, number | null> = {}) => ({
  message_id: messageId,
  type: 'user.login',
  endpoint_hash: endpointHash,
  endpoint: 'http://hooks.example/…',
  payload: '{"ü":"🦄"}',
  attempts: 0,
  available_at: 1_000,
  locked_until: null,
  sent_at: null,
  failed_at: null,
  last_status: null,
  last_error: null,
  created_at: 1_000,
  ...fields,
});

/** mail/outbox.repository.ts, webhook-outbox.repository.ts (claims: storage.test.ts) and audit.repository.ts. */
export const outboxesContract: ContractSuite = (ctx) => {
  covers(
    [insertWebhookEvent, dropUntakenEvents],
    'webhook events nobody took since a time are dropped; taken and newer ones stay',
    async () => {
      const { db } = ctx();
      const event = (messageId: string, createdAt: number, sentAt: number | null) =>
        insertWebhookEvent(db, {
          message_id: messageId,
          type: 'user.login',
          payload: sentAt === null ? '{"ü":"🦄"}' : '',
          attempts: 0,
          available_at: createdAt,
          locked_until: null,
          sent_at: sentAt,
          failed_at: null,
          last_error: null,
          created_at: createdAt,
        });
      const label = hash64('event').slice(0, 24);
      await event(`${label}_old`, 1_000, null);
      await event(`${label}_taken`, 1_000, 1_500);
      await event(`${label}_new`, 3_000, null);
      assert.equal(await dropUntakenEvents(db, 2_000), 1);
      const left = await db
        .selectFrom('webhook_events')
        .select(['message_id', 'payload'])
        .where('message_id', 'like', `${label}%`)
        .orderBy('message_id')
        .execute();
      assert.deepEqual(left, [
        { message_id: `${label}_new`, payload: '{"ü":"🦄"}' },
        { message_id: `${label}_taken`, payload: '' },
      ]);
    },
  );

  covers(
    [dropUndelivered],
    'mail still waiting for a recipient is dropped; sent and given-up mail stays',
    async () => {
      const { db } = ctx();
      const recipient = uniqueEmail('outbox');
      const row = (fields: { sent_at?: number; failed_at?: number } = {}) =>
        insertOutboxRow(db, {
          kind: 'storage-test',
          recipient,
          payload: 'sealed',
          attempts: 0,
          available_at: 1,
          locked_until: null,
          sent_at: fields.sent_at ?? null,
          failed_at: fields.failed_at ?? null,
          last_error: null,
          created_at: 1,
        });
      const ids = [await row(), await row(), await row({ sent_at: 2 }), await row({ failed_at: 2 })];
      assert.ok(
        ids.every((id, i) => i === 0 || id > ids[i - 1]!),
        'ids increase',
      );
      assert.equal(await dropUndelivered(db, recipient), 2);
      assert.equal(await dropUndelivered(db, recipient), 0);
    },
  );

  covers(
    [listDeliveries, findDelivery],
    'deliveries are listed newest first with a total, without their payload; one is read whole',
    async () => {
      const { db } = ctx();
      const before = await listDeliveries(db, 1, 0);
      const endpoint = hash64('endpoint');
      await insertWebhookRows(db, []);
      await insertWebhookRows(db, [delivery('msg_a', endpoint), delivery('msg_b', endpoint)]);
      const page = await listDeliveries(db, 2, 0);
      assert.equal(page.total, before.total + 2);
      assert.deepEqual(
        page.items.map((item) => item.message_id),
        ['msg_b', 'msg_a'],
      );
      assert.ok(!('payload' in page.items[0]!) && !('endpoint_hash' in page.items[0]!));
      assert.deepEqual(
        (await listDeliveries(db, 1, 1)).items.map((item) => item.message_id),
        ['msg_a'],
      );
      const whole = (await findDelivery(db, page.items[0]!.id))!;
      assert.deepEqual([whole.payload, whole.endpoint_hash], ['{"ü":"🦄"}', endpoint]);
      assert.equal(await findDelivery(db, page.items[0]!.id + 100_000), undefined);
    },
  );

  covers(
    [requeueDelivery, giveUpUnlisted],
    'requeue: never a delivered row or one a worker holds; endpoints no longer listed are given up',
    async () => {
      const { db } = ctx();
      const [kept, dropped] = [hash64('kept'), hash64('dropped')];
      await insertWebhookRows(db, [
        delivery('msg_given_up', kept, { failed_at: 5 }),
        delivery('msg_sent', kept, { sent_at: 5 }),
        delivery('msg_held', kept, { locked_until: 10_000 }),
        delivery('msg_waiting', dropped),
        delivery('msg_held_dropped', dropped, { locked_until: 10_000 }),
      ]);
      const rows = await db
        .selectFrom('webhook_outbox')
        .select(['id', 'message_id'])
        .where('endpoint_hash', 'in', [kept, dropped])
        .execute();
      const id = (messageId: string) => rows.find((row) => row.message_id === messageId)!.id;
      assert.equal(await requeueDelivery(db, id('msg_sent'), 2_000), false);
      assert.equal(await requeueDelivery(db, id('msg_held'), 2_000), false);
      assert.equal(await requeueDelivery(db, id('msg_held'), 10_000), true, 'the lease ran out');
      assert.equal(await requeueDelivery(db, id('msg_given_up'), 2_000), true);
      const requeued = (await findDelivery(db, id('msg_given_up')))!;
      assert.deepEqual([requeued.available_at, requeued.failed_at], [2_000, null]);
      // Every undelivered, unheld row of an endpoint not in the list: here only `dropped`'s free one.
      const others = await db
        .selectFrom('webhook_outbox')
        .select('endpoint_hash')
        .where('sent_at', 'is', null)
        .where('failed_at', 'is', null)
        .where('endpoint_hash', 'not in', [kept, dropped])
        .execute();
      const listed = [kept, ...new Set(others.map((row) => row.endpoint_hash))];
      assert.equal(await giveUpUnlisted(db, listed, 3_000), 1);
      const givenUp = (await findDelivery(db, id('msg_waiting')))!;
      assert.deepEqual(
        [givenUp.failed_at, givenUp.last_error],
        [3_000, 'endpoint no longer in WEBHOOK_URLS'],
      );
      assert.equal((await findDelivery(db, id('msg_held_dropped')))!.failed_at, null, 'held by a worker');
    },
  );

  covers(
    [firstSubjectOf, auditRowsOfUser, forgetAddresses],
    "audit: the first subject of an event; a user's rows; a deleted user's addresses are forgotten",
    async () => {
      const { db } = ctx();
      const [user, admin] = [await aUser(db), await aUser(db)];
      const event = `storage.${hash64('event').slice(0, 20)}`;
      assert.equal(await firstSubjectOf(db, event), null);
      const audit = (fields: {
        actor: number | null;
        subject: number | null;
        details: object | null;
        event?: string;
      }) =>
        db
          .insertInto('audit_log')
          .values({
            event: fields.event ?? 'storage.test',
            actor_id: fields.actor,
            subject_id: fields.subject,
            ip_address: null,
            details: fields.details === null ? null : JSON.stringify(fields.details),
            created_at: 1,
          })
          .execute();
      await audit({ actor: null, subject: user.id, details: null, event });
      await audit({ actor: null, subject: admin.id, details: null, event });
      assert.equal(await firstSubjectOf(db, event), user.id);
      await audit({ actor: null, subject: user.id, details: { email: 'typo@example.com', reason: 'x' } });
      await audit({
        actor: user.id,
        subject: admin.id,
        details: { to: 'typo@example.com', from: 'admin@example.com' },
      });
      await audit({ actor: admin.id, subject: admin.id, details: { email: 'admin@example.com' } });
      assert.equal((await auditRowsOfUser(db, user.id)).length, 3);
      await forgetAddresses(db, user.id, [user.email]);
      const details = (await auditRowsOfUser(db, user.id)).map(
        (row) => row.details && JSON.parse(row.details),
      );
      assert.deepEqual(details, [null, { reason: 'x' }, { from: 'admin@example.com' }]);
      const untouched = (await auditRowsOfUser(db, admin.id)).at(-1)!;
      assert.deepEqual(JSON.parse(untouched.details!), { email: 'admin@example.com' });
    },
  );
};
