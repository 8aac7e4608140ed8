import type { Kysely } from 'kysely';
import { forEachRow } from './helpers.ts';

const PAGE = 1000;

/**
 * E-mails are NFC-normalised before lower-casing since docs/security.md (users/user.ts normaliseEmail).
 * An address stored before in another form (an "é" typed as e + combining accent) would no longer be
 * found by any lookup — its owner could not log in or reset — so it is rewritten in NFC here. Where the
 * NFC form already belongs to another account the row is left as it is: which of two accounts keeps
 * the address is a person's decision, not a migration's. Read in pages by id, so memory stays flat.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Untyped in migrations (the schema as it was); only these three columns are touched.
  const users = db as unknown as Kysely<{
    users: { id: number; email: string; pending_email: string | null };
  }>;
  await forEachRow(
    (after) =>
      users
        .selectFrom('users')
        .select(['id', 'email', 'pending_email'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute(),
    async (row) => {
      const email = row.email.normalize('NFC').toLowerCase();
      const pending = row.pending_email?.normalize('NFC').toLowerCase() ?? null;
      const changes: { email?: string; pending_email?: string | null } = {};
      if (pending !== row.pending_email) changes.pending_email = pending;
      if (email !== row.email) {
        const holder = await users
          .selectFrom('users')
          .select('id')
          .where('email', '=', email)
          .executeTakeFirst();
        // MySQL's collations may call both forms equal and find this very row: that is no other holder.
        if (holder === undefined || holder.id === row.id) changes.email = email;
      }
      if (Object.keys(changes).length > 0) {
        await users.updateTable('users').set(changes).where('id', '=', row.id).execute();
      }
    },
  );
}

/** Nothing to undo: the NFC form is the same address, and the old form is not kept. */
export async function down(): Promise<void> {}
