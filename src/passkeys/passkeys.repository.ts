import { insertReturningId } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { NewPasskeyRow, PasskeyRow } from './passkeys.table.ts';

/** A passkey as the account page, GET /user/passkeys and the data export show it: no key material. */
export interface PasskeySummary {
  readonly id: number;
  readonly name: string;
  /** Epoch milliseconds. */
  readonly created_at: number;
  readonly last_used_at: number | null;
}

/** A user's passkeys, oldest first (the order they were added in). */
export async function listPasskeys(db: Db, userId: number): Promise<PasskeySummary[]> {
  const rows = await db
    .selectFrom('passkeys')
    .select(['id', 'name', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    created_at: Number(row.created_at),
    last_used_at: row.last_used_at === null ? null : Number(row.last_used_at),
  }));
}

/** The credential ids (and transports) a user already registered: excludeCredentials of a new one. */
export function credentialsOf(db: Db, userId: number) {
  return db
    .selectFrom('passkeys')
    .select(['credential_id', 'transports'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

export function findPasskeyByCredential(db: Db, credentialHash: string): Promise<PasskeyRow | undefined> {
  return db
    .selectFrom('passkeys')
    .selectAll()
    .where('credential_hash', '=', credentialHash)
    .executeTakeFirst();
}

export function findOwnPasskey(db: Db, userId: number, id: number): Promise<PasskeyRow | undefined> {
  return db
    .selectFrom('passkeys')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Inserts a passkey; a credential id registered before (by anyone) fails on the unique credential_hash. */
export function insertPasskey(db: Db, row: NewPasskeyRow): Promise<number> {
  return insertReturningId(db, 'passkeys', row);
}

export async function renamePasskey(
  db: Db,
  userId: number,
  id: number,
  name: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ name, updated_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function deletePasskeyRow(db: Db, userId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('passkeys')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows === 1n;
}

/**
 * Records a sign-in: the new signature counter and the time, only if the counter is still the one the
 * verification compared against (compare-and-swap). A concurrent sign-in that moved it first wins; this
 * one then gets false and is refused.
 */
export async function recordPasskeyUse(
  db: Db,
  id: number,
  seenCounter: number,
  newCounter: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ counter: newCounter, last_used_at: now, updated_at: now })
    .where('id', '=', id)
    .where('counter', '=', seenCounter)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
