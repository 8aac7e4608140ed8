import type { Db } from '../db/schema.ts';

/** Replaces any pending address with `email` (one per user: the last request wins, nothing is merged). */
export async function setPendingEmail(db: Db, userId: number, email: string, now: number): Promise<void> {
  await db
    .updateTable('users')
    .set({ pending_email: email, pending_email_at: now, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

/**
 * True when a pending address was there to clear. With `only`, only while that address is still the
 * pending one (a cancel link names the change it cancels; a newer request stays).
 */
export async function clearPendingEmail(db: Db, userId: number, only?: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ pending_email: null, pending_email_at: null })
    .where('id', '=', userId)
    .where((eb) =>
      only === undefined ? eb('pending_email', 'is not', null) : eb('pending_email', '=', only),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The switch, conditional on `pending` still being the pending address: of two clicks, or a click
 * racing a new request, exactly one outcome is written. The new address is verified by the click.
 */
export async function switchToPendingEmail(
  db: Db,
  userId: number,
  pending: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({
      email: pending,
      email_verified_at: now,
      pending_email: null,
      pending_email_at: null,
      updated_at: now,
    })
    .where('id', '=', userId)
    .where('pending_email', '=', pending)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
