import { insertReturningId } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { InvitationRow, NewInvitationRow } from './orgs.table.ts';

/** Queries of organization_invitations (docs/guides/organizations.md); no rules here. */

export function insertInvitation(db: Db, row: NewInvitationRow): Promise<number> {
  return insertReturningId(db, 'organization_invitations', row);
}

export function findInvitation(db: Db, id: number): Promise<InvitationRow | undefined> {
  return db.selectFrom('organization_invitations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The invitations of an organization still valid at `now`, oldest first. */
export function pendingInvitations(db: Db, organizationId: number, now: number): Promise<InvitationRow[]> {
  return db
    .selectFrom('organization_invitations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('expires_at', '>', now)
    .orderBy('id')
    .execute();
}

/** Removes an expired invitation of this address, so that a new one may take its place. */
export async function deleteExpiredInvitation(
  db: Db,
  organizationId: number,
  email: string,
  now: number,
): Promise<void> {
  await db
    .deleteFrom('organization_invitations')
    .where('organization_id', '=', organizationId)
    .where('email', '=', email)
    .where('expires_at', '<=', now)
    .execute();
}

/** Cancels one invitation of the organization; false when it has none of that id. */
export async function deleteInvitation(db: Db, organizationId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('organization_invitations')
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Spends an invitation: one conditional DELETE (… WHERE id AND token_hash). True only for the one
 * call that removed the row, however many acceptances of the same link run at once: on PostgreSQL
 * and MySQL the others wait for its row lock and then find nothing; SQLite writes one at a time.
 */
export async function consumeInvitation(db: Db, id: number, tokenHash: string): Promise<boolean> {
  const result = await db
    .deleteFrom('organization_invitations')
    .where('id', '=', id)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return result.numDeletedRows === 1n;
}
