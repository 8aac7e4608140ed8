import type { FastifyInstance } from 'fastify';
import { sendPage } from '../../pages.ts';
import { dashboardPage } from '../../views/pages/dashboard.ts';

export async function dashboardRoutes(app: FastifyInstance) {
  app.get('/dashboard', { preHandler: app.requireAuth(['web']) }, async (request, reply) => {
    const session = request.sessionOf('web');
    const verified = (request.query as Record<string, unknown>)['verified'] === '1';
    const status = session.flashed('status') ?? (verified ? request.t('pages.verified') : undefined);
    return sendPage(reply, dashboardPage(request, request.identity!.user, session.csrfToken(), status));
  });
}
