import type { FastifyInstance } from 'fastify';
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
  },
  required: ['id', 'name', 'email', 'email_verified_at', 'created_at', 'updated_at'],
  additionalProperties: false,
} as const;

/** GET /api/user in Sanctum's shape: never a password hash or a remember token; times in ISO 8601. */
export function toPublicUser(user: User) {
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
  app.get(
    '/api/user',
    {
      preHandler: apiAuth(app, { oauth: true }),
      schema: { response: { 200: userSchema } },
    },
    async (request) => toPublicUser(request.identity!.user),
  );
}
