import { insertReturningId } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import { hasPassword } from '../users/user.ts';
import type { IdentityRow, NewIdentityRow } from './identities.table.ts';

/** A linked identity as the account page, GET /user/linked-accounts, the panel and the export show it. */
export interface IdentitySummary {
  readonly id: number;
  readonly provider: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

export function findIdentity(db: Db, provider: string, subject: string): Promise<IdentityRow | undefined> {
  return db
    .selectFrom('identities')
    .selectAll()
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

/** A user's linked identities, oldest first (the order they were linked in). */
export async function listIdentities(db: Db, userId: number): Promise<IdentitySummary[]> {
  const rows = await db
    .selectFrom('identities')
    .select(['id', 'provider', 'email', 'email_verified', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    provider: row.provider,
    email: row.email,
    emailVerified: row.email_verified === 1,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  }));
}

/** A user's identity rows, oldest first (the data export picks its fields from them). */
export function listIdentityRows(db: Db, userId: number): Promise<IdentityRow[]> {
  return db.selectFrom('identities').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

/**
 * Links an identity. The unique indexes decide between concurrent links: an identity already linked
 * (to anyone) or a second identity of one provider for the user fails as a unique violation.
 */
export function insertIdentity(db: Db, row: NewIdentityRow): Promise<number> {
  return insertReturningId(db, 'identities', row);
}

/** A sign-in through the identity: what the provider says about the address now, and when. */
export async function recordIdentityUse(
  db: Db,
  id: number,
  facts: { email: string | null; emailVerified: boolean },
  now: number,
): Promise<void> {
  await db
    .updateTable('identities')
    .set({
      email: facts.email,
      email_verified: facts.emailVerified ? 1 : 0,
      last_used_at: now,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

export function findOwnIdentity(db: Db, userId: number, id: number): Promise<IdentityRow | undefined> {
  return db
    .selectFrom('identities')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export async function deleteIdentityRow(db: Db, userId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('identities')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows === 1n;
}

/**
 * The ways a user can sign in besides one identity (`exceptIdentityId`): a password, passkeys, other
 * linked identities. Unlinking is refused when all three are none (docs/guides/login-providers.md).
 */
export async function otherSignInWays(
  db: Db,
  userId: number,
  exceptIdentityId: number,
): Promise<{ password: boolean; passkeys: number; identities: number }> {
  const row = await db
    .selectFrom('users')
    .select((eb) => [
      'users.password',
      eb
        .selectFrom('passkeys')
        .select(eb.fn.countAll<number | string>().as('n'))
        .where('passkeys.user_id', '=', userId)
        .as('passkeys'),
      eb
        .selectFrom('identities')
        .select(eb.fn.countAll<number | string>().as('n'))
        .where('identities.user_id', '=', userId)
        .where('identities.id', '!=', exceptIdentityId)
        .as('identities'),
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  if (row === undefined) return { password: false, passkeys: 0, identities: 0 };
  return {
    password: hasPassword(row.password),
    passkeys: Number(row.passkeys ?? 0),
    identities: Number(row.identities ?? 0),
  };
}

/** Whether the user has a password of their own (an account made through a provider has none). */
export async function userHasPassword(db: Db, userId: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('password').where('id', '=', userId).executeTakeFirst();
  return row !== undefined && hasPassword(row.password);
}
