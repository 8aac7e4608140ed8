import { fetchPage, type Page } from '../admin/paging.ts';
import type { Db } from '../db/schema.ts';
import { pendingInvitations } from './invitations.repository.ts';
import {
  findOrganizationById,
  membersOf,
  type OrganizationListingRow,
  searchOrganizationRows,
} from './orgs.repository.ts';
import { type OrgInvitation, type OrgMember, toInvitation, toMember } from './people.ts';

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
  readonly members: readonly OrgMember[];
  readonly invitations: readonly OrgInvitation[];
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
    members: members.map(toMember),
    invitations: invitations.map(toInvitation),
  };
}
