import type { Db } from '../db/schema.ts';
import type { NewSigningKeyRow, SigningKeyRow } from './signing-keys.table.ts';

/** Keys still published: current ones and those retired after `retiredAfter`; newest first. */
export function publishedKeys(db: Db, retiredAfter: number): Promise<SigningKeyRow[]> {
  return db
    .selectFrom('oauth_signing_keys')
    .selectAll()
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]))
    .orderBy('id', 'desc')
    .execute();
}

/**
 * What changes whenever the key set does (a key added, retired or deleted): one cheap aggregate that
 * every instance compares a few times a minute (signing-keys.ts).
 */
export async function keySetVersion(db: Db): Promise<string> {
  const row = await db
    .selectFrom('oauth_signing_keys')
    .select((eb) => [
      eb.fn.max('id').as('newest'),
      eb.fn.countAll<number | string>().as('keys'),
      eb.fn.max('retired_at').as('retired'),
    ])
    .executeTakeFirstOrThrow();
  return `${row.newest ?? 0}:${row.keys}:${row.retired ?? 0}`;
}

export async function insertSigningKey(db: Db, row: NewSigningKeyRow): Promise<void> {
  await db.insertInto('oauth_signing_keys').values(row).execute();
}

/** Retires every current key: newer ones take over signing. */
export async function retireCurrentKeys(db: Db, now: number): Promise<void> {
  await db
    .updateTable('oauth_signing_keys')
    .set({ retired_at: now })
    .where('retired_at', 'is', null)
    .execute();
}

/** Deletes keys retired before `cutoff`: nothing they signed can still be presented. */
export async function deleteKeysRetiredBefore(db: Db, cutoff: number): Promise<number> {
  const result = await db
    .deleteFrom('oauth_signing_keys')
    .where('retired_at', 'is not', null)
    .where('retired_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
