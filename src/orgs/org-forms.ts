import { field, rules } from '../lib/validation.ts';
import type { OrgRoles } from './roles.ts';

/** The shape of a slug: lower-case letters, digits and hyphens, 2 to 63 (it names the organization in URLs and headers). */
export const SLUG_PATTERN = /^[a-z0-9-]{2,63}$/;

/** POST /orgs (docs/guides/organizations.md). */
export const createOrganizationSchema = {
  name: field.required(rules.line(), rules.max(255)),
  slug: field.required(rules.string(), rules.matches(SLUG_PATTERN)),
};

/** PUT /orgs/{slug}: the name only; the slug never changes. */
export const renameOrganizationSchema = {
  name: field.required(rules.line(), rules.max(255)),
};

/** One of the configured roles (Laravel's `in` rule: "The selected role is invalid."). */
function roleField(roles: OrgRoles) {
  return field.required(
    rules.custom(
      (value) => (typeof value === 'string' && roles.has(value) ? undefined : { key: 'validation.in' }),
      {
        type: 'string',
        enum: [...roles.names],
      },
    ),
  );
}

/** POST /orgs/{slug}/invitations. */
export function invitationSchema(roles: OrgRoles) {
  return {
    email: field.required(rules.email(), rules.max(255)),
    role: roleField(roles),
  };
}

/** PUT /orgs/{slug}/members/{user}. */
export function memberRoleSchema(roles: OrgRoles) {
  return { role: roleField(roles) };
}

/** PUT /user/current-org: the organization the session works in (one the user belongs to). */
export const currentOrganizationSchema = {
  organization_id: field.required(rules.integer(1, 2_147_483_647)),
};
