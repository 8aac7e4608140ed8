import type { FastifyInstance } from 'fastify';
import type { OrgMembership } from '../../../orgs/memberships.ts';
import type { User } from '../../../users/user.ts';
import { apiAuth } from './support.ts';

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

/**
 * GET /api/user in Sanctum's shape: never a password hash or a remember token; times in ISO 8601; the
 * user's organizations (the serialiser keeps `id`, `slug`, `name` and `role` of each).
 */
export function toPublicUser(user: User, organizations: readonly OrgMembership[]) {
  return { ...publicFields(user), organizations };
}

/**
 * The user's fields in their public shape, by user object: the cache door hands out the same frozen
 * User while its row is unchanged, and three toISOString calls were the largest piece of this route's
 * own time (docs/contributing/benchmarks.md "toPublicUser"). A changed row is a new object.
 */
const publicShapes = new WeakMap<User, ReturnType<typeof shapeOf>>();

function publicFields(user: User) {
  let shape = publicShapes.get(user);
  if (shape === undefined) {
    shape = shapeOf(user);
    publicShapes.set(user, shape);
  }
  return shape;
}

function shapeOf(user: User) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    email_verified_at: user.emailVerifiedAt === null ? null : new Date(user.emailVerifiedAt).toISOString(),
    created_at: new Date(user.createdAt).toISOString(),
    updated_at: new Date(user.updatedAt).toISOString(),
  };
}

export async function userRoutes(app: FastifyInstance) {
  const { orgs } = app.services;
  app.get(
    '/api/user',
    {
      preHandler: apiAuth(app, { oauth: true }),
      schema: { response: { 200: userSchema } },
    },
    async (request) => {
      const user = request.identity!.user;
      // The per-request memberships lookup (services.ts): kept while nothing changed, like the user.
      return toPublicUser(user, await orgs.membershipsOf(user.id));
    },
  );
}
