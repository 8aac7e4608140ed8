import { fetchPage, type Page } from '../admin/paging.ts';
import type { Db } from '../db/schema.ts';
import { pendingInvitations } from './invitations.repository.ts';
import {
  findOrganizationById,
  membersOf,
  type OrganizationListingRow,
  searchOrganizationRows,
} from './orgs.repository.ts';

/** The panel's view of organizations (docs/guides/organizations.md): read only, every organization. */

export interface OrgListing {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly members: number;
  readonly createdAt: number;
}

export function browseOrganizations(
  db: Db,
  query: { readonly search: string; readonly page: number },
  pageSize: number,
): Promise<Page<OrgListing>> {
  return fetchPage(
    async (limit, offset) => {
      const { rows, total } = await searchOrganizationRows(db, {
        query: query.search.slice(0, 255),
        limit,
        offset,
      });
      return { items: rows.map(listing), total };
    },
    query.page,
    pageSize,
  );
}

function listing(row: OrganizationListingRow): OrgListing {
  return { id: row.id, slug: row.slug, name: row.name, members: row.members, createdAt: row.created_at };
}

export interface OrgRecord {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly createdAt: number;
  readonly members: readonly { id: number; name: string; email: string; role: string; joinedAt: number }[];
  readonly invitations: readonly { id: number; email: string; role: string; expiresAt: number }[];
}

/** One organization with its members and pending invitations, or null. */
export async function organizationRecord(db: Db, id: number, now: number): Promise<OrgRecord | null> {
  const organization = await findOrganizationById(db, id);
  if (organization === undefined) return null;
  const [members, invitations] = await Promise.all([membersOf(db, id), pendingInvitations(db, id, now)]);
  return {
    id,
    slug: organization.slug,
    name: organization.name,
    createdAt: organization.created_at,
    members: members.map((m) => ({
      id: m.user_id,
      name: m.name,
      email: m.email,
      role: m.role,
      joinedAt: m.created_at,
    })),
    invitations: invitations.map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      expiresAt: i.expires_at,
    })),
  };
}
