import type { Kysely } from 'kysely';
import { forEachRow } from './helpers.ts';

const PAGE = 1000;

/**
 * The label rule as it was when this migration was written (webhooks/webhook-outbox.ts maskedEndpoint),
 * copied: a migration keeps doing what it did whatever the live code becomes.
 */
function maskedEndpoint(url: string, hash: string): string {
  const parsed = new URL(url);
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  const first = segments[0] ?? '';
  const path = first.length > 24 ? '/…' : `/${first}${segments.length > 1 ? '/…' : ''}`;
  return `${parsed.origin}${path} #${hash.slice(0, 8)}`;
}

/**
 * Webhook outbox rows stored their endpoint as origin + path, and receivers such as Slack and Discord
 * keep their secret in the path. The label is now masked (webhooks/webhook-outbox.ts endpointLabel);
 * the rows written before get the same label, its fingerprint taken from the row's endpoint_hash (the
 * SHA-256 of the whole URL, as a new label's is). Read in pages by id, so memory stays flat.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Untyped in migrations (the schema as it was); only these columns are touched.
  const outbox = db as unknown as Kysely<{
    webhook_outbox: { id: number; endpoint: string; endpoint_hash: string };
  }>;
  await forEachRow(
    (after) =>
      outbox
        .selectFrom('webhook_outbox')
        .select(['id', 'endpoint', 'endpoint_hash'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute(),
    async (row) => {
      if (/ #[0-9a-f]{8}$/.test(row.endpoint)) return;
      let label: string;
      try {
        label = maskedEndpoint(row.endpoint, row.endpoint_hash);
      } catch {
        // Not a URL (written by hand?): nothing of it is shown.
        label = `… #${row.endpoint_hash.slice(0, 8)}`;
      }
      await outbox.updateTable('webhook_outbox').set({ endpoint: label }).where('id', '=', row.id).execute();
    },
  );
}

/** Nothing to undo: the masked part is not kept anywhere. */
export async function down(): Promise<void> {}
