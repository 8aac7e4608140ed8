import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  createTestDatabase,
  MYSQL_ADMIN_URL,
  mysqlAvailable,
  POSTGRES_ADMIN_URL,
  postgresAvailable,
  requireServices,
} from '../helpers/databases.ts';
import { eventually, HttpClient, type ServerProcess, startServer } from '../helpers/process.ts';
import { startWebhookReceiver, webhookSecret } from '../helpers/webhook-receiver.ts';

/**
 * docs/guides/webhooks.md with two real server processes over one database: both run the webhook worker, both
 * take changes at the same moment, and the receiver gets every event exactly once — not once per
 * instance (the lease of outbox/leased-rows.ts decides; each instance's log counts what it delivered).
 */
const SERVERS = {
  postgres: { label: 'PostgreSQL', url: POSTGRES_ADMIN_URL, up: postgresAvailable },
  mysql: { label: 'MariaDB/MySQL', url: MYSQL_ADMIN_URL, up: mysqlAvailable },
} as const;
const PASSWORD = 'correct horse battery staple';
const USERS = 12;
const secret = webhookSecret();
const receiver = await startWebhookReceiver(secret);
after(() => receiver.close());

async function skipReason(dialect: keyof typeof SERVERS): Promise<string | false> {
  const { label, url, up } = SERVERS[dialect];
  if (await up()) return false;
  if (requireServices)
    throw new Error(`${label} is required (REQUIRE_SERVICES=1) but not reachable at ${url}`);
  return `${label} not reachable at ${url}`;
}

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`webhooks from two server processes over one ${SERVERS[dialect].label}`, {
    skip: await skipReason(dialect),
  }, () => {
    test('each event is delivered once, whichever instance made it and whichever delivers it', async (t) => {
      const database = await createTestDatabase(dialect);
      receiver.forget();
      const env = {
        DATABASE_URL: database.url,
        IP_AUTH_LIMIT: '0',
        WEBHOOK_URLS: receiver.url,
        WEBHOOK_SECRET: secret,
      };
      const servers: ServerProcess[] = [];
      try {
        servers.push(...(await Promise.all([startServer({ env }), startServer({ env })])));
        // Registrations and token logins spread over both instances, all at once.
        await Promise.all(
          Array.from({ length: USERS }, async (_, i) => {
            const server = servers[i % 2]!;
            const email = `twin-${dialect}-${i}@example.com`;
            const browser = new HttpClient(server.url);
            await browser.get('/register');
            const registered = await browser.request('POST', '/register', {
              json: { name: `Twin ${i}`, email, password: PASSWORD, password_confirmation: PASSWORD },
            });
            assert.equal(registered.status, 204, registered.body);
            const other = new HttpClient(servers[(i + 1) % 2]!.url);
            const issued = await other.request('POST', '/api/tokens', {
              json: { email, password: PASSWORD, device_name: 'twin' },
            });
            assert.equal(issued.status, 200, issued.body);
          }),
        );
        // user.registered, user.login and token.created per user.
        const expected = USERS * 3;
        await eventually(
          () => (receiver.events.length >= expected ? true : undefined),
          30_000,
          `${expected} events`,
        );
        // Time for a duplicate, were one on its way.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const ids = receiver.requests.map((r) => r.id);
        assert.equal(receiver.events.length, expected);
        assert.equal(new Set(ids).size, ids.length, 'no webhook-id was delivered twice');
        const logs = servers.flatMap((s) => s.stdout).filter((line) => line.includes('"webhook delivered"'));
        const byInstance = servers.map(
          (s) => s.stdout.filter((line) => line.includes('"webhook delivered"')).length,
        );
        t.diagnostic(`deliveries by instance: ${byInstance.join(' + ')} = ${logs.length}`);
        assert.equal(logs.length, expected);
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
        await database.drop();
      }
    });
  });
}
