import type { FastifyInstance } from 'fastify';
import { toPublicUser } from '../../../users/user.ts';
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

export async function userRoutes(app: FastifyInstance) {
  app.get(
    '/api/user',
    {
      preHandler: apiAuth(app),
      schema: { response: { 200: userSchema } },
    },
    async (request) => toPublicUser(request.identity!.user),
  );
}
