import { sql } from 'kysely';
import type { Db } from '../db/schema.ts';
import { setEmailVerified } from '../users/users.repository.ts';
import type { UserRow } from '../users/users.table.ts';

/** The flag changes the panel makes; each is written only when it changes something. */
export type UserFlagChange = { verify: true } | { disabled: boolean } | { panelAccess: boolean };

/** Conditional UPDATE: true when this call changed the row (so exactly one of two racing admins audits). */
export async function setUserFlag(
  db: Db,
  userId: number,
  flag: UserFlagChange,
  now: number,
): Promise<boolean> {
  if ('verify' in flag) return setEmailVerified(db, userId, now);
  let query = db.updateTable('users').where('id', '=', userId);
  if ('disabled' in flag) {
    query = flag.disabled
      ? query.set({ disabled_at: now, updated_at: now }).where('disabled_at', 'is', null)
      : query.set({ disabled_at: null, updated_at: now }).where('disabled_at', 'is not', null);
  } else {
    const value = flag.panelAccess ? 1 : 0;
    query = query.set({ can_access_panel: value, updated_at: now }).where('can_access_panel', '!=', value);
  }
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function userExists(db: Db, userId: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
  return row !== undefined;
}

/** The overview's head counts: every user, and those verified, disabled and with the panel flag. */
export async function countUsersByState(db: Db) {
  const users = db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n'));
  const count = (row: { n: number | string | bigint } | undefined) => Number(row?.n ?? 0);
  const [all, verified, disabled, panel] = await Promise.all([
    users.executeTakeFirst(),
    users.where('email_verified_at', 'is not', null).executeTakeFirst(),
    users.where('disabled_at', 'is not', null).executeTakeFirst(),
    users.where('can_access_panel', '=', 1).executeTakeFirst(),
  ]);
  return { all: count(all), verified: count(verified), disabled: count(disabled), panel: count(panel) };
}

/** The user list's quick filters (Filament-style): everyone, or one kind of account. */
export const USER_FILTERS = [
  'all',
  'disabled',
  'unverified',
  'admin',
  'two_factor',
  'no_two_factor',
  'passkeys',
  'no_passkeys',
] as const;
export type UserFilter = (typeof USER_FILTERS)[number];

export interface UserSearch {
  /**
   * Matched against name and e-mail as a substring, case-insensitively; digits, with or without a
   * leading "#" (as the search box suggests), also match the id.
   */
  readonly query: string;
  readonly filter?: UserFilter;
  readonly newestFirst: boolean;
  readonly limit: number;
  readonly offset: number;
}

/**
 * `%` and `_` typed into the search box are literal characters, not wildcards. The escape character
 * is `!`, not a backslash: inside an SQL string literal MySQL reads a backslash as an escape itself,
 * standard SQL does not, so `escape '\'` cannot be written once for every dialect.
 */
export function escapeLike(value: string): string {
  return value.replace(/[!%_]/g, (c) => `!${c}`);
}

/** A row of the user list: the user, whether two-factor is on, and how many passkeys they have. */
export type UserListRow = UserRow & { readonly two_factor: unknown; readonly passkeys: unknown };

export async function searchUserRows(
  db: Db,
  search: UserSearch,
): Promise<{ rows: UserListRow[]; total: number }> {
  // Names and addresses are searched in the stored form of an address (users/user.ts normaliseEmail).
  const term = search.query.trim().normalize('NFC').toLowerCase();
  let base = db.selectFrom('users');
  if (term !== '') {
    const pattern = `%${escapeLike(term)}%`;
    const id = /^#?(\d{1,9})$/.exec(term)?.[1];
    base = base.where((eb) =>
      eb.or([
        sql<boolean>`lower(${sql.ref('name')}) like ${pattern} escape '!'`,
        sql<boolean>`${sql.ref('email')} like ${pattern} escape '!'`,
        ...(id !== undefined ? [eb('id', '=', Number(id))] : []),
      ]),
    );
  }
  if (search.filter === 'disabled') base = base.where('disabled_at', 'is not', null);
  else if (search.filter === 'unverified') base = base.where('email_verified_at', 'is', null);
  else if (search.filter === 'admin') base = base.where('can_access_panel', '=', 1);
  // Two-factor is on once its enrolment is confirmed (two-factor/two-factor.ts).
  const twoFactor = db
    .selectFrom('two_factor_credentials as tf')
    .select('tf.user_id')
    .where('tf.user_id', '=', sql.ref<number>('users.id'))
    .where('tf.confirmed_at', 'is not', null);
  const passkeys = db.selectFrom('passkeys as pk').where('pk.user_id', '=', sql.ref<number>('users.id'));
  if (search.filter === 'two_factor') base = base.where((eb) => eb.exists(twoFactor));
  else if (search.filter === 'no_two_factor') base = base.where((eb) => eb.not(eb.exists(twoFactor)));
  else if (search.filter === 'passkeys') base = base.where((eb) => eb.exists(passkeys.select('pk.id')));
  else if (search.filter === 'no_passkeys')
    base = base.where((eb) => eb.not(eb.exists(passkeys.select('pk.id'))));
  const direction = search.newestFirst ? 'desc' : 'asc';
  const [rows, count] = await Promise.all([
    base
      .selectAll('users')
      .select((eb) => [
        eb.exists(twoFactor).as('two_factor'),
        passkeys.select((p) => p.fn.countAll().as('n')).as('passkeys'),
      ])
      .orderBy('created_at', direction)
      .orderBy('id', direction)
      .limit(search.limit)
      .offset(search.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
