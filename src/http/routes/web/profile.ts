import type { FastifyInstance } from 'fastify';
import { sendPage } from '../../pages.ts';
import { profilePage } from '../../views/pages/profile.ts';
import { requireVerifiedEmail } from './support.ts';

/** GET /profile: a session and a verified e-mail address (CONTRACT §4). */
export async function profileRoutes(app: FastifyInstance) {
  const { services } = app;
  app.get(
    '/profile',
    { preHandler: [app.requireAuth(['web']), requireVerifiedEmail] },
    async (request, reply) => {
      const user = request.identity!.user;
      const session = request.sessionOf('web');
      const tokens = await services.auth.tokens.list(user.id);
      return sendPage(
        reply,
        profilePage(request, {
          user,
          tokens,
          csrfToken: session.csrfToken(),
          status: session.flashed('status'),
        }),
      );
    },
  );
}
