import assert from 'node:assert/strict';
import { test } from 'node:test';
import { up as maskStoredLabels } from '../../src/db/migrations/2026_11_28_000201_mask_webhook_endpoint_labels.ts';
import { insertWebhookRows } from '../../src/webhooks/webhook-outbox.repository.ts';
import { endpointHash, endpointLabel } from '../../src/webhooks/webhook-outbox.ts';
import { describeEachDialect } from '../helpers/app.ts';

const SLACK = 'https://hooks.slack.com/services/T0000/B0000/SECRETSECRETSECRET';

await describeEachDialect('webhook endpoint labels at rest', (ctx) => {
  test('rows stored with the path (before labels were masked) are rewritten; masked ones are left alone', async () => {
    const { db } = ctx();
    const row = (n: number, endpoint: string, hash: string) => ({
      message_id: `msg_label_${n}`,
      type: 'user.login',
      endpoint_hash: hash,
      endpoint,
      payload: '{}',
      attempts: 0,
      available_at: 0,
      locked_until: null,
      sent_at: null,
      failed_at: null,
      last_status: null,
      last_error: null,
      created_at: 0,
    });
    const other = 'https://in.example/hook?token=x';
    await insertWebhookRows(db, [
      // What the release before stored: origin + path, the secret in it.
      row(1, 'https://hooks.slack.com/services/T0000/B0000/SECRETSECRETSECRET', endpointHash(SLACK)),
      row(2, endpointLabel(other), endpointHash(other)),
    ]);
    await maskStoredLabels(db as never);
    const rows = await db
      .selectFrom('webhook_outbox')
      .select(['message_id', 'endpoint'])
      .where('message_id', 'in', ['msg_label_1', 'msg_label_2'])
      .orderBy('message_id')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.endpoint),
      [endpointLabel(SLACK), endpointLabel(other)],
    );
    assert.ok(!rows[0]!.endpoint.includes('SECRET'));
  });
});
