import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { inTransaction } from '../db/in-transaction.ts';
import type { Db } from '../db/schema.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { type OauthClient, toClient } from './client-records.ts';
import { findClientRow, updateClientRow } from './clients.repository.ts';

/**
 * A confidential client's secret (docs/guides/oidc-provider.md "Clients"): 256 random bits,
 * URL-safe (Basic authentication needs no escaping), shown once and stored as its SHA-256 (like API
 * tokens: a secret that long needs no slow hash); compared in constant time (provider.ts
 * compareClientSecret).
 */
export function newClientSecret(): { readonly secret: string; readonly hash: string } {
  const secret = randomToken(32);
  return { secret, hash: sha256Hex(secret) };
}

/**
 * A new secret for a confidential client (the old one stops working at once); null when there is no
 * such client, 'public' for a client without a secret.
 */
export async function rotateClientSecret(
  db: Db,
  clientId: string,
  audit: AuditContext,
): Promise<{ client: OauthClient; secret: string } | null | 'public'> {
  const current = await findClientRow(db, clientId);
  if (current === undefined) return null;
  if (current.secret_hash === null) return 'public';
  const { secret, hash } = newClientSecret();
  await inTransaction(db, async (trx) => {
    await updateClientRow(trx, clientId, {
      secret_hash: hash,
      secret_rotated_at: audit.now,
      updated_at: audit.now,
    });
    await recordAudit(trx, 'oauth.client.secret_rotated', audit, null, { client_id: clientId });
  });
  const row = await findClientRow(db, clientId);
  return row === undefined ? null : { client: toClient(row), secret };
}
