import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { findGrantRow } from './grants.repository.ts';
import { destroyGrants } from './models.repository.ts';

/** What a JWT access token's grant says now: whose it is and for which client; null once revoked. */
export interface LiveGrant {
  readonly accountId: string;
  readonly clientId: string;
}

/** A grant by its id, null when revoked, expired or unknown. services.ts wraps it in the auth cache. */
export type FindGrant = (grantId: string) => Promise<LiveGrant | null>;

/**
 * The plain lookup behind FindGrant: one row by primary key. It is the revocation check of every JWT
 * access token (access-tokens.ts): a grant revoked (its code replayed, its refresh token reused, the
 * connected app revoked, its client deleted, its session ended) is a row deleted.
 */
export function grantFinder(db: Db, clock: Clock): FindGrant {
  return async (grantId) => {
    const row = await findGrantRow(db, sha256Hex(grantId), clock.now());
    if (row === undefined || row.account_id === null || row.client_id === null) return null;
    return { accountId: row.account_id, clientId: row.client_id };
  };
}

/** Revokes a grant: it and every code, refresh token and session link issued from it go. */
export async function revokeGrant(db: Db, grantId: string): Promise<void> {
  await destroyGrants(db, [sha256Hex(grantId)]);
}
