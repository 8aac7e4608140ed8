import type { ExportPart } from '../account/data-export.ts';
import { joinedOrganizations } from './orgs.repository.ts';

/** The data export's `organizations` (docs/guides/account.md): where the user is a member, in which role, since when. */
export const organizationsExportPart: ExportPart = {
  name: 'organizations',
  async collect({ db }, userId) {
    return (await joinedOrganizations(db, userId)).map((row) => ({
      id: row.id,
      slug: row.slug,
      name: row.name,
      role: row.role,
      joined_at: new Date(row.created_at).toISOString(),
    }));
  },
};
