import type { Db } from '../db/schema.ts';
import type { AuditRow } from './audit.table.ts';

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

/** Every row by or about a user (subject or actor), oldest first: the account's history. */
export function auditRowsOfUser(db: Db, userId: number): Promise<AuditRow[]> {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) => eb.or([eb('subject_id', '=', userId), eb('actor_id', '=', userId)]))
    .orderBy('id')
    .execute();
}

const ADDRESS_LIKE = /^[^\s@]+@[^\s@]+$/;

/**
 * Removes a deleted user's e-mail addresses from the details of every row by or about them: the rows
 * stay, with the user's id. In a row *about* the user every address goes — the `email` a login
 * failure or lockout recorded, the `from`/`to` of an address change — since each was theirs at the
 * time, or one they typed. In a row where they only *acted* (an admin's action on someone else), only
 * their own addresses (`known`, plus those just found) go: other people's records stay whole.
 */
export async function forgetAddresses(db: Db, userId: number, known: readonly string[]): Promise<void> {
  const rows = await db
    .selectFrom('audit_log')
    .select(['id', 'subject_id', 'details'])
    .where((eb) => eb.or([eb('subject_id', '=', userId), eb('actor_id', '=', userId)]))
    .where('details', 'is not', null)
    .execute();
  const parsed = rows.map((row) => ({
    id: row.id,
    about: row.subject_id === userId,
    details: JSON.parse(row.details!) as Record<string, unknown>,
  }));
  const theirs = new Set(known.map((address) => address.toLowerCase()));
  for (const row of parsed) {
    if (!row.about) continue;
    for (const value of Object.values(row.details)) {
      if (typeof value === 'string' && ADDRESS_LIKE.test(value)) theirs.add(value.toLowerCase());
    }
  }
  for (const row of parsed) {
    const forget = ([key, value]: [string, unknown]) =>
      (row.about && key === 'email') || (typeof value === 'string' && theirs.has(value.toLowerCase()));
    const entries = Object.entries(row.details);
    if (!entries.some(forget)) continue;
    const kept = Object.fromEntries(entries.filter((entry) => !forget(entry)));
    await db
      .updateTable('audit_log')
      .set({ details: JSON.stringify(kept) })
      .where('id', '=', row.id)
      .execute();
  }
}
