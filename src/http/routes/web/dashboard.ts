import type { FastifyInstance } from 'fastify';
import { sendPage } from '../../pages.ts';
import { dashboardPage } from '../../views/pages/dashboard.ts';

export async function dashboardRoutes(app: FastifyInstance) {
  app.get('/dashboard', { preHandler: app.requireAuth(['web']) }, async (request, reply) => {
    const session = request.sessionOf('web');
    const verified = (request.query as Record<string, unknown>)['verified'] === '1';
    const status = session.flashed('status') ?? (verified ? request.t('pages.verified') : undefined);
    const user = request.identity!.user;
    const methods = await app.services.account.signInMethods(user.id);
    return sendPage(
      reply,
      dashboardPage(request, {
        t: request.t,
        locale: request.locale,
        user,
        csrfToken: session.csrfToken(),
        status,
        methods,
      }),
    );
  });
}
