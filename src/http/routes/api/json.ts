import { type AccessToken, tokenFacts } from '../../../auth/tokens/access-tokens.ts';
import type { OrgMembership } from '../../../orgs/memberships.ts';
import type { User } from '../../../users/user.ts';

/**
 * What the API answers, in Sanctum's shapes: the user of GET /api/user (never a password hash or a
 * remember token) and a token of GET /api/tokens (never its secret). Times are ISO 8601 strings.
 */

// A response schema lets Fastify serialise with a compiled stringifier (the hottest route).
export const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    email: { type: 'string' },
    email_verified_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    // docs/guides/organizations.md: the user's organizations, each with the user's role there.
    organizations: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          slug: { type: 'string' },
          name: { type: 'string' },
          role: { type: 'string' },
        },
        required: ['id', 'slug', 'name', 'role'],
        additionalProperties: false,
      },
    },
  },
  required: ['id', 'name', 'email', 'email_verified_at', 'created_at', 'updated_at', 'organizations'],
  additionalProperties: false,
} as const;

/** The JSON shape of GET /api/user. */
export interface PublicUser {
  id: number;
  name: string;
  email: string;
  email_verified_at: string | null;
  created_at: string;
  updated_at: string;
  /** The serialiser keeps `id`, `slug`, `name` and `role` of each (userSchema). */
  organizations: readonly OrgMembership[];
}

export function toPublicUser(user: User, organizations: readonly OrgMembership[]): PublicUser {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    email_verified_at: iso(user.emailVerifiedAt),
    created_at: isoString(user.createdAt),
    updated_at: isoString(user.updatedAt),
    organizations,
  };
}

export function iso(ms: number | null): string | null {
  return ms === null ? null : isoString(ms);
}

// GET /api/user formats the same three timestamps of a user on every request (~0.5 µs each): the
// strings are kept (bounded; emptied when full). Kept because the benchmark needs it: without it bearer
// GET /api/user spent ~1.2 µs more server CPU per request (~5 %), on the case closest to its target.
const isoStrings = new Map<number, string>();
const ISO_STRINGS_LIMIT = 10_000;

function isoString(ms: number): string {
  let text = isoStrings.get(ms);
  if (text === undefined) {
    text = new Date(ms).toISOString();
    if (isoStrings.size >= ISO_STRINGS_LIMIT) isoStrings.clear();
    isoStrings.set(ms, text);
  }
  return text;
}

export function tokenJson(token: AccessToken) {
  return tokenFacts(token, iso);
}
