import type { FastifyInstance } from 'fastify';
import { toPublicUser, userSchema } from './json.ts';
import { apiAuth } from './support.ts';

export async function userRoutes(app: FastifyInstance) {
  const { orgs } = app.services;
  app.get(
    '/api/user',
    {
      preHandler: apiAuth(app),
      schema: { response: { 200: userSchema } },
    },
    async (request) => {
      const user = request.identity!.user;
      // The per-request memberships lookup (services.ts): kept while nothing changed, like the user.
      return toPublicUser(user, await orgs.membershipsOf(user.id));
    },
  );
}
