import type { Db } from '../db/schema.ts';

/** The subject of the earliest row of `event` (e.g. the first admin.created), or null. */
export async function firstSubjectOf(db: Db, event: string): Promise<number | null> {
  const row = await db
    .selectFrom('audit_log')
    .select('subject_id')
    .where('event', '=', event)
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst();
  return row?.subject_id ?? null;
}

/**
 * Removes an address from the details of every row by or about a user (login failures record the
 * e-mail that was tried): the rows stay, with the user's id.
 */
export async function forgetAddress(db: Db, userId: number, email: string): Promise<void> {
  const rows = await db
    .selectFrom('audit_log')
    .select(['id', 'details'])
    .where((eb) => eb.or([eb('subject_id', '=', userId), eb('actor_id', '=', userId)]))
    .where('details', 'is not', null)
    .execute();
  for (const row of rows) {
    const details = JSON.parse(row.details!) as Record<string, unknown>;
    if (!('email' in details) && !Object.values(details).includes(email)) continue;
    const kept = Object.fromEntries(Object.entries(details).filter(([k, v]) => k !== 'email' && v !== email));
    await db
      .updateTable('audit_log')
      .set({ details: JSON.stringify(kept) })
      .where('id', '=', row.id)
      .execute();
  }
}
