import type { FastifyInstance } from 'fastify';
import { toPublicUser, userSchema } from './json.ts';
import { apiAuth } from './support.ts';

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
