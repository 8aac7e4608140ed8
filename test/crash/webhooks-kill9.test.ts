import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/connection.ts';
import { availableDialects, createTestDatabase, databaseConfig } from '../helpers/databases.ts';
import { eventually, HttpClient, type ServerProcess, startServer } from '../helpers/process.ts';
import { startWebhookReceiver, webhookSecret } from '../helpers/webhook-receiver.ts';

/**
 * docs/guides/webhooks.md against `kill -9`: registrations on a real server process while the webhook receiver
 * is down, the process killed in the middle of the burst, restarted on the same database with the
 * receiver back. Every account that exists was announced exactly once — one webhook-id, accepted
 * once — and no event speaks of an account that was rolled back with the crash.
 */
const WORKERS = 6;
const KILL_AFTER = 8;
const PASSWORD = 'sturdy passphrase 42';
const secret = webhookSecret();
const receiver = await startWebhookReceiver(secret);
after(() => receiver.close());

async function burst(server: ServerProcess): Promise<{ acknowledged: string[]; attempted: Set<string> }> {
  const acknowledged: string[] = [];
  const attempted = new Set<string>();
  let killing = false;
  let n = 0;
  const failures: unknown[] = [];
  const worker = async (w: number) => {
    while (!killing) {
      const email = `hook-crash-${w}-${n++}@example.com`;
      const browser = new HttpClient(server.url);
      try {
        await browser.get('/register');
        attempted.add(email);
        const answer = await browser.request('POST', '/register', {
          json: { name: `Crash ${w}`, email, password: PASSWORD, password_confirmation: PASSWORD },
        });
        if (answer.status !== 204) throw new Error(`register ${answer.status} ${answer.body}`);
        acknowledged.push(email);
      } catch (error) {
        if (!killing) failures.push(error);
        return;
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
  await eventually(
    () => (acknowledged.length >= KILL_AFTER || failures.length > 0 ? true : undefined),
    60_000,
  );
  killing = true;
  await server.kill9();
  await Promise.all(workers);
  assert.deepEqual(failures, [], 'no request failed before the kill');
  return { acknowledged, attempted };
}

for (const { name, skip } of await availableDialects()) {
  describe(`webhooks across kill -9 [${name}]`, { skip }, () => {
    test('every committed registration is announced exactly once after the restart, no other', async (t) => {
      const database = await createTestDatabase(name);
      await receiver.stop();
      receiver.forget();
      const env = {
        DATABASE_URL: database.url,
        IP_AUTH_LIMIT: '0',
        WEBHOOK_URLS: receiver.url,
        WEBHOOK_SECRET: secret,
      };
      let restarted: ServerProcess | undefined;
      try {
        const first = await startServer({ env });
        const { acknowledged, attempted } = await burst(first);

        const handle = openDatabase(databaseConfig(name, database.url));
        let users: { id: number; email: string }[];
        try {
          users = await handle.db.selectFrom('users').select(['id', 'email']).execute();
          for (const email of acknowledged)
            assert.ok(
              users.some((u) => u.email === email),
              `${email} is durable`,
            );
          for (const user of users) assert.ok(attempted.has(user.email));
          // The account and its event are one transaction: one event per account, none for another.
          const events = await handle.db
            .selectFrom('webhook_events')
            .select('message_id')
            .where('type', '=', 'user.registered')
            .execute();
          assert.equal(events.length, users.length, 'one user.registered event per account');
          const deliveries = await handle.db
            .selectFrom('webhook_outbox')
            .select(['message_id', 'sent_at'])
            .where('type', '=', 'user.registered')
            .execute();
          assert.ok(
            deliveries.every((r) => r.sent_at === null),
            'the receiver was down: nothing delivered yet',
          );
          // A row the dead process had claimed would wait out its lease (2 minutes): fast-forwarded.
          const now = Date.now();
          for (const table of ['webhook_events', 'webhook_outbox'] as const) {
            await handle.db
              .updateTable(table)
              .set({ locked_until: now })
              .where('locked_until', '>', now)
              .execute();
          }
          t.diagnostic(
            `${users.length} accounts committed at the crash, ${acknowledged.length} acknowledged`,
          );
        } finally {
          await handle.close();
        }

        await receiver.start();
        restarted = await startServer({ env });
        const registered = () => receiver.events.filter((e) => e.type === 'user.registered');
        // The first retry comes within 10 s of the last failure.
        await eventually(
          () => (registered().length >= users.length ? true : undefined),
          30_000,
          'every event',
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
        const announced = registered().map((e) => (e.data['user'] as { id: number; email: string }).email);
        assert.deepEqual(
          [...announced].sort(),
          users.map((u) => u.email).sort(),
          'each account once, no other',
        );
        const ids = registered().map((e) => e.id);
        assert.equal(new Set(ids).size, ids.length, 'one webhook-id per event');
        assert.ok(
          receiver.requests.every((r) => r.verified),
          'every delivery signed',
        );
      } finally {
        await restarted?.stop();
        await database.drop();
      }
    });
  });
}
