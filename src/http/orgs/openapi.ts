import type { JsonSchema } from '../../lib/validation.ts';
import {
  createOrganizationSchema,
  currentOrganizationSchema,
  invitationSchema,
  memberRoleSchema,
  renameOrganizationSchema,
} from '../../orgs/org-forms.ts';
import type { OrgRoles } from '../../orgs/roles.ts';
import { bodySchema } from '../openapi/bodies.ts';
import type { Op } from '../openapi/operation.ts';
import { ref } from '../openapi/schemas.ts';

const tag = 'Organizations';
const access = 'session';
const form = true;
const integer = { type: 'integer' } as const;
const string = { type: 'string' } as const;
const strings = { type: 'array', items: string } as const;

function object(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

const summary = object({ id: integer, slug: string, name: string, role: string });
const invitation = object({
  id: integer,
  email: string,
  role: string,
  expires_at: { type: 'string', format: 'date-time' },
});
const detail = object({
  id: integer,
  slug: string,
  name: string,
  role: string,
  abilities: strings,
  members: { type: 'array', items: object({ id: integer, name: string, email: string, role: string }) },
  invitations: { type: 'array', items: invitation },
});

const message = (description: string) => ({ description, json: ref('Message') });
const notFound = message('No such organization — or you are not a member: the very same answer.');
const forbidden = message('Your role does not allow it ("This action is unauthorized.").');
const lastOwner = (field: string) => ({
  description: `The last owner can neither leave nor lose the role (on \`${field}\`), or validation failed.`,
  json: ref('ValidationError'),
});
const done = (description: string) => ({ 204: { description } });
const linkParts = object({ token: string, expires: string, signature: string });
const refusedLink = message(
  'The link cannot be accepted by this account: forged or altered, used, cancelled, expired, for another address, or the address is not verified yet.',
);

/** docs/guides/organizations.md: organizations, members, invitations and the current organization. */
export function orgPaths(roles: OrgRoles): Record<string, Record<string, Op>> {
  return {
    '/orgs': {
      get: {
        tag,
        access,
        summary: 'Your organizations, with your role in each',
        responses: {
          200: { description: 'By slug.', json: object({ data: { type: 'array', items: summary } }) },
        },
      },
      post: {
        tag,
        access,
        summary: 'Create an organization (verified users); you are its owner',
        body: bodySchema(createOrganizationSchema),
        form,
        responses: {
          201: { description: 'Created.', json: summary },
          403: message('Your email address is not verified.'),
          422: {
            description: 'Invalid, or "The slug has already been taken."',
            json: ref('ValidationError'),
          },
        },
      },
    },
    '/orgs/{slug}': {
      get: {
        tag,
        access,
        summary: 'One organization: members, and pending invitations for owners and admins',
        responses: { 200: { description: 'Members only.', json: detail }, 404: notFound },
      },
      put: {
        tag,
        access,
        summary: 'Rename (owners and admins; the slug never changes)',
        body: bodySchema(renameOrganizationSchema),
        form,
        responses: { ...done('Saved.'), 403: forbidden, 404: notFound },
      },
      delete: {
        tag,
        access,
        confirmed: true,
        summary: 'Delete the organization, its memberships and invitations (owners)',
        responses: { ...done('Deleted.'), 403: forbidden, 404: notFound },
      },
    },
    '/orgs/{slug}/roles': {
      get: {
        tag,
        access,
        summary: 'The roles (owner, admin, member and ORG_ROLES) and their abilities',
        responses: {
          200: {
            description: 'Every role.',
            json: object({ data: { type: 'array', items: object({ name: string, abilities: strings }) } }),
          },
          404: notFound,
        },
      },
    },
    '/orgs/{slug}/invitations': {
      get: {
        tag,
        access,
        summary: 'Pending invitations (owners and admins)',
        responses: {
          200: { description: 'Oldest first.', json: object({ data: { type: 'array', items: invitation } }) },
          403: forbidden,
          404: notFound,
        },
      },
      post: {
        tag,
        access,
        summary: 'Invite an address with a role: a signed, single-use link goes to it by mail',
        description: 'Admins cannot invite owners. Valid ORG_INVITATION_EXPIRE minutes.',
        body: bodySchema(invitationSchema(roles)),
        form,
        responses: {
          201: { description: 'Invited.', json: invitation },
          403: forbidden,
          404: notFound,
          422: {
            description: 'Invalid, already a member, or already invited.',
            json: ref('ValidationError'),
          },
        },
      },
    },
    '/orgs/{slug}/invitations/{id}': {
      delete: {
        tag,
        access,
        summary: 'Cancel an invitation (owners and admins; an owner invitation, owners)',
        responses: {
          ...done('Cancelled.'),
          403: forbidden,
          404: message('No such organization or invitation.'),
        },
      },
    },
    '/orgs/{slug}/members/{user}': {
      put: {
        tag,
        access,
        summary: "Change a member's role (`{user}`: an id, or `me`)",
        description: 'Owners and admins; only owners give, change or take the owner role.',
        body: bodySchema(memberRoleSchema(roles)),
        form,
        responses: { ...done('Changed.'), 403: forbidden, 404: notFound, 422: lastOwner('role') },
      },
      delete: {
        tag,
        access,
        summary: 'Remove a member (owners and admins), or leave (`me`)',
        responses: { ...done('Removed.'), 403: forbidden, 404: notFound, 422: lastOwner('user') },
      },
    },
    '/org-invitations/{id}': {
      get: {
        tag,
        access,
        summary: 'What an invitation link offers you (`token`, `expires`, `signature` in the query)',
        responses: {
          200: { description: 'The organization and the role.', json: object({ organization: summary }) },
          403: refusedLink,
        },
      },
      post: {
        tag,
        access,
        summary: 'Accept an invitation (the link’s `token`, `expires` and `signature`)',
        body: linkParts,
        form,
        responses: {
          201: { description: 'You joined.', json: summary },
          200: { description: 'You were already a member; the link is spent.', json: summary },
          403: refusedLink,
        },
      },
    },
    '/user/current-org': {
      put: {
        tag,
        access,
        summary: "Set the session's current organization",
        body: bodySchema(currentOrganizationSchema),
        form,
        responses: done('Set.'),
      },
    },
  };
}
