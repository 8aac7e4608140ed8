import type { FastifyInstance } from 'fastify';
import { postRoutes } from './posts.ts';
import { tokenRoutes } from './tokens.ts';
import { userRoutes } from './user.ts';

/** Everything under /api: bearer tokens or, for stateful front ends, the web session (API_GUARDS). */
export async function apiRoutes(app: FastifyInstance) {
  await app.register(tokenRoutes);
  await app.register(userRoutes);
  await app.register(postRoutes);
}
