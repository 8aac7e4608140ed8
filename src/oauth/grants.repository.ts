import type { Db } from '../db/schema.ts';

/** A grant's row by the SHA-256 of its id: the facts the token check needs. */
export function findGrantRow(db: Db, grantHash: string, now: number) {
  return db
    .selectFrom('oauth_models')
    .select(['account_id', 'client_id', 'expires_at'])
    .where('kind', '=', 'Grant')
    .where('id_hash', '=', grantHash)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}
