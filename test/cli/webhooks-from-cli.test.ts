import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp, TEST_APP_KEY, type TestApp } from '../helpers/app.ts';
import { runGatehouse } from '../helpers/cli.ts';
import { availableDialects, createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { type ServerProcess, startServer } from '../helpers/process.ts';
import { enableTwoFactor } from '../helpers/two-factor.ts';
import { startWebhookReceiver, type WebhookReceiver, webhookSecret } from '../helpers/webhook-receiver.ts';

/**
 * docs/guides/webhooks.md: an event caused by a CLI command is delivered by the running service to its
 * configured endpoints, whatever the command's own environment. A real server process with WEBHOOK_URLS,
 * and `gatehouse two-factor:disable` run as its own process beside it: once without WEBHOOK_URLS (the
 * operator's shell), once with other ones (a stale .env).
 */
for (const { name: dialect, skip } of await availableDialects()) {
  describe(`webhooks of CLI commands are delivered by the running service [${dialect}]`, { skip }, () => {
    const secret = webhookSecret();
    let database: TestDatabase;
    let setup: TestApp;
    let server: ServerProcess;
    let service: WebhookReceiver;
    let elsewhere: WebhookReceiver;
    let cwd: string;

    before(async () => {
      database = await createTestDatabase(dialect);
      // Migrates the database and enrols users through the use cases; its own worker never runs.
      setup = await createTestApp(dialect, { databaseUrl: database.url });
      service = await startWebhookReceiver(secret);
      elsewhere = await startWebhookReceiver(webhookSecret());
      server = await startServer({
        env: { DATABASE_URL: database.url, WEBHOOK_URLS: service.url, WEBHOOK_SECRET: secret },
      });
      cwd = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
    });
    after(async () => {
      await server?.stop();
      await setup?.close();
      await database?.drop();
      await service?.close();
      await elsewhere?.close();
      rmSync(cwd, { recursive: true, force: true });
    });

    const disable = async (email: string, env: Record<string, string> = {}) => {
      const result = await runGatehouse(
        ['two-factor:disable', '--email', email],
        { DATABASE_URL: database.url, APP_KEY: TEST_APP_KEY, MAIL_MAILER: 'log', ...env },
        cwd,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `Two-factor authentication turned off for ${email}.\n`);
    };
    const delivered = (userId: number) =>
      service.waitFor(
        (event) =>
          event.type === 'two_factor.disabled' && (event.data['user'] as { id: number }).id === userId,
        15_000,
        `two_factor.disabled for user ${userId}`,
      );

    test('run without WEBHOOK_URLS: two_factor.disabled reaches the service’s endpoint, signed', async () => {
      const user = await setup.createUser();
      await enableTwoFactor(setup, user);
      await disable(user.email);
      const event = await delivered(user.id);
      assert.deepEqual(event.data, {
        user: { id: user.id, email: user.email, name: user.name },
        actor_id: null,
        by: 'cli',
      });
      assert.match(event.id, /^msg_/);
    });

    test('run with other WEBHOOK_URLS: delivered to the service’s endpoint only, once', async () => {
      const user = await setup.createUser();
      await enableTwoFactor(setup, user);
      await disable(user.email, { WEBHOOK_URLS: elsewhere.url, WEBHOOK_SECRET: webhookSecret() });
      const event = await delivered(user.id);
      // A moment for a second delivery, if there were one.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(service.events.filter((e) => e.id === event.id).length, 1);
      assert.deepEqual(elsewhere.requests, []);
    });
  });
}
