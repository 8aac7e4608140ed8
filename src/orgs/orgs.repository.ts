import { sql } from 'kysely';
import { escapeLike } from '../admin/panel.repository.ts';
import { hasRowLocks, insertReturningId } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { MembershipRow, OrganizationRow } from './orgs.table.ts';

/** Queries of organizations and their memberships (docs/guides/organizations.md); no rules here. */

export function insertOrganization(
  db: Db,
  values: { name: string; slug: string; now: number },
): Promise<number> {
  return insertReturningId(db, 'organizations', {
    name: values.name,
    slug: values.slug,
    created_at: values.now,
    updated_at: values.now,
  });
}

/**
 * The organization of `slug`. With `lock`, its row stays locked until the transaction ends (FOR
 * UPDATE where the database has row locks; SQLite's transactions write one at a time): every change
 * of an organization's memberships takes this lock first, so two of them never both count the owners
 * before either writes.
 */
export function findOrganizationBySlug(
  db: Db,
  slug: string,
  options: { lock: boolean } = { lock: false },
): Promise<OrganizationRow | undefined> {
  const query = db.selectFrom('organizations').selectAll().where('slug', '=', slug);
  return (options.lock && hasRowLocks(db) ? query.forUpdate() : query).executeTakeFirst();
}

export function findOrganizationById(db: Db, id: number): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The organization's row by id, locked like findOrganizationBySlug's (an invitation names it by id). */
export function lockOrganization(db: Db, id: number): Promise<OrganizationRow | undefined> {
  const query = db.selectFrom('organizations').selectAll().where('id', '=', id);
  return (hasRowLocks(db) ? query.forUpdate() : query).executeTakeFirst();
}

export async function renameOrganization(db: Db, id: number, name: string, now: number): Promise<void> {
  await db.updateTable('organizations').set({ name, updated_at: now }).where('id', '=', id).execute();
}

/** Deletes the organization; its memberships and invitations go with it (foreign keys cascade). */
export async function deleteOrganizationRow(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('organizations').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** A user's membership of one organization, as the per-request lookup and the lists show it. */
export interface MembershipOfUser {
  readonly organization_id: number;
  readonly slug: string;
  readonly name: string;
  readonly role: string;
}

/** Every organization `userId` belongs to, with the role, by slug: one indexed read of a few rows. */
export function membershipsOfUser(db: Db, userId: number): Promise<MembershipOfUser[]> {
  return db
    .selectFrom('organization_memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['m.organization_id', 'o.slug', 'o.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('o.slug')
    .execute();
}

export function findMembership(
  db: Db,
  organizationId: number,
  userId: number,
): Promise<MembershipRow | undefined> {
  return db
    .selectFrom('organization_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export interface MemberRow {
  readonly user_id: number;
  readonly name: string;
  readonly email: string;
  readonly role: string;
  readonly created_at: number;
}

/** The members of an organization with their names and addresses, in the order they joined. */
export function membersOf(db: Db, organizationId: number): Promise<MemberRow[]> {
  return db
    .selectFrom('organization_memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.name', 'u.email', 'm.role', 'm.created_at'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('m.id')
    .execute();
}

export async function insertMembership(
  db: Db,
  values: { organizationId: number; userId: number; role: string; now: number },
): Promise<void> {
  await db
    .insertInto('organization_memberships')
    .values({
      organization_id: values.organizationId,
      user_id: values.userId,
      role: values.role,
      created_at: values.now,
      updated_at: values.now,
    })
    .execute();
}

export async function setMembershipRole(
  db: Db,
  organizationId: number,
  userId: number,
  role: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('organization_memberships')
    .set({ role, updated_at: now })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteMembership(db: Db, organizationId: number, userId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('organization_memberships')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function countOwners(db: Db, organizationId: number): Promise<number> {
  const row = await db
    .selectFrom('organization_memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface OrganizationListingRow extends OrganizationRow {
  readonly members: number;
}

/**
 * The panel's list: organizations whose name or slug contains `query` (literally: `%` and `_` are
 * characters, admin/panel.repository.ts escapeLike), newest first, each with its number of members.
 */
export async function searchOrganizationRows(
  db: Db,
  search: { query: string; limit: number; offset: number },
): Promise<{ rows: OrganizationListingRow[]; total: number }> {
  const term = search.query.trim().normalize('NFC').toLowerCase();
  let base = db.selectFrom('organizations as o');
  if (term !== '') {
    const pattern = `%${escapeLike(term)}%`;
    base = base.where((eb) =>
      eb.or([
        sql<boolean>`lower(${sql.ref('o.name')}) like ${pattern} escape '!'`,
        sql<boolean>`${sql.ref('o.slug')} like ${pattern} escape '!'`,
      ]),
    );
  }
  const [rows, count] = await Promise.all([
    base
      .selectAll('o')
      .select((eb) =>
        eb
          .selectFrom('organization_memberships as m')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .whereRef('m.organization_id', '=', 'o.id')
          .as('members'),
      )
      .orderBy('o.created_at', 'desc')
      .orderBy('o.id', 'desc')
      .limit(search.limit)
      .offset(search.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((row) => ({ ...row, members: Number(row.members) })), total: Number(count.n) };
}

/** A user's memberships with when they joined, for the data export. */
export function joinedOrganizations(db: Db, userId: number) {
  return db
    .selectFrom('organization_memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.slug', 'o.name', 'm.role', 'm.created_at'])
    .where('m.user_id', '=', userId)
    .orderBy('o.slug')
    .execute();
}
