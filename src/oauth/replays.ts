import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { Db } from '../db/schema.ts';

/**
 * A refresh token presented again after it was rotated (RFC 9700 §4.14.2: someone else holds a copy):
 * the library has revoked the whole grant; this records it. `accountId` is the library's string id.
 */
export async function recordRefreshTokenReuse(
  db: Db,
  reuse: { readonly accountId: string | null; readonly clientId: string | null },
  audit: AuditContext,
): Promise<void> {
  const userId =
    reuse.accountId !== null && /^[1-9][0-9]{0,15}$/.test(reuse.accountId) ? Number(reuse.accountId) : null;
  await recordAudit(db, 'oauth.refresh_token.reused', audit, userId, { client_id: reuse.clientId });
}
