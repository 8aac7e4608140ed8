import { withinArgon2Bounds } from '../../auth/passwords/password-strength.ts';
import type { Db } from '../../db/schema.ts';
import { normaliseEmail } from '../../users/user.ts';
import type { NewUserRow } from '../../users/users.table.ts';
import { isKnownHash, laravelId, type RowContext, toUserRow } from './rows.ts';
import type { SourceReader } from './source.ts';
import { type Phase, Skips } from './tally.ts';

/** Addresses that differ only in letter case: Gatehouse has one account per address, so which one? */
export interface Collision {
  readonly email: string;
  readonly ids: readonly string[];
}

export function findCollisions(rows: readonly { id: number | string; email: string | null }[]): Collision[] {
  const byEmail = new Map<string, string[]>();
  for (const { id, email } of rows) {
    if (email === null) continue;
    const key = normaliseEmail(email);
    byEmail.set(key, [...(byEmail.get(key) ?? []), String(id)]);
  }
  return [...byEmail]
    .filter(([, ids]) => ids.length > 1)
    .map(([email, ids]) => ({ email, ids }))
    .sort((a, b) => a.email.localeCompare(b.email));
}

export interface UserPhase extends Phase {
  /** Imported users whose hash Gatehouse cannot verify (not bcrypt or argon2): they must reset it. */
  unverifiable: number;
  /**
   * Imported users whose argon2 hash was beyond the bounds a check may cost (password-strength.ts
   * ARGON2_BOUNDS): not copied, so they must reset their password. The count and the first few ids.
   */
  readonly unreasonable: { count: number; readonly ids: string[] };
  /** Laravel ids that are Gatehouse users after this run (imported now or by an earlier run). */
  readonly accepted: Set<number>;
}

/**
 * Copies the users, a batch at a time in id order. Each is imported, recognised as imported before
 * (the same id with the same address: a second run imports nothing new), or skipped with a reason —
 * never merged into a different Gatehouse account that holds its id or its address.
 */
export async function importUsers(
  reader: SourceReader,
  db: Db,
  write: boolean,
  context: RowContext & {
    readonly collided: ReadonlySet<string>;
    readonly batchSize: number;
    /** False for a dry run into a database Gatehouse has not migrated yet: it holds nobody. */
    readonly targetReady: boolean;
  },
  progress: (done: number, total: number) => void,
): Promise<UserPhase> {
  const phase: UserPhase = {
    found: await reader.countUsers(),
    imported: 0,
    alreadyThere: 0,
    skips: new Skips(),
    unverifiable: 0,
    unreasonable: { count: 0, ids: [] },
    accepted: new Set(),
  };
  let after: number | string = 0;
  let done = 0;
  for (;;) {
    const batch = await reader.users(after, context.batchSize);
    if (batch.length === 0) break;
    after = batch.at(-1)!.id;
    done += batch.length;
    const candidates: (NewUserRow & { id: number })[] = [];
    for (const source of batch) {
      // Reported once, as a collision; neither account is imported (nor are its tokens).
      if (context.collided.has(String(source.id))) continue;
      const converted = toUserRow(source, context);
      if ('skip' in converted) phase.skips.add(converted.skip, source.id);
      else candidates.push(converted.row);
    }
    const insert = [];
    if (candidates.length > 0) {
      const { byId, byEmail } = context.targetReady
        ? await existingUsers(
            db,
            candidates.map((c) => c.id),
            candidates.map((c) => c.email),
          )
        : { byId: new Map(), byEmail: new Map() };
      for (const row of candidates) {
        const sameId = byId.get(row.id);
        const sameEmail = byEmail.get(row.email);
        if (sameId !== undefined && sameId.email === row.email) {
          phase.alreadyThere++;
          phase.accepted.add(row.id);
        } else if (sameId !== undefined) {
          phase.skips.add('its id belongs to another Gatehouse user', row.id);
        } else if (sameEmail !== undefined) {
          phase.skips.add(`its e-mail belongs to another Gatehouse user`, row.id);
        } else if (!withinArgon2Bounds(row.password)) {
          // Every login of this user would hold a hashing thread for the hash's whole cost: the account
          // comes without it (no password verifies) and its owner resets the password.
          insert.push({ ...row, password: '' });
          phase.accepted.add(row.id);
          phase.unreasonable.count++;
          if (phase.unreasonable.ids.length < Skips.EXAMPLES) phase.unreasonable.ids.push(String(row.id));
        } else {
          insert.push(row);
          phase.accepted.add(row.id);
          if (!isKnownHash(row.password)) phase.unverifiable++;
        }
      }
    }
    if (write && insert.length > 0) await db.insertInto('users').values(insert).execute();
    phase.imported += insert.length;
    progress(done, phase.found);
  }
  return phase;
}

/** Gatehouse users holding any of these ids or addresses. */
async function existingUsers(db: Db, ids: number[], emails: string[]) {
  const rows = await db
    .selectFrom('users')
    .select(['id', 'email'])
    .where((eb) => eb.or([eb('id', 'in', ids), eb('email', 'in', emails)]))
    .execute();
  return {
    byId: new Map(rows.map((row) => [row.id, row])),
    byEmail: new Map(rows.map((row) => [row.email, row])),
  };
}

/** The source's user id for each lower-cased address that is not part of a collision. */
export function sourceIdsByEmail(
  rows: readonly { id: number | string; email: string | null }[],
  collided: ReadonlySet<string>,
): Map<string, number | null> {
  const ids = new Map<string, number | null>();
  for (const { id, email } of rows) {
    if (email !== null && !collided.has(String(id))) ids.set(normaliseEmail(email), laravelId(id));
  }
  return ids;
}
