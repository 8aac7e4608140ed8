import type { FastifyInstance } from 'fastify';
import { pageNumber } from '../../../admin/paging.ts';
import { NotFoundError } from '../../errors.ts';
import { sendPage } from '../../pages.ts';
import { auditContext, queryString } from '../../request-context.ts';
import { webhooksPage } from '../../views/admin/webhooks.ts';
import { finishAction, idParam, takeFlash } from './support.ts';

const DELIVERIES_PER_PAGE = 50;

/**
 * The panel's webhook page (docs/guides/webhooks.md): recent deliveries with their state, and Retry, which
 * makes an undelivered one due now (a POST behind the admin guard and its CSRF token, audited).
 */
export async function adminWebhookRoutes(app: FastifyInstance) {
  const { webhooks } = app.services;
  const preHandler = app.requireAuth(['admin']);

  app.get('/admin/webhooks', { preHandler }, async (request, reply) => {
    const page = await webhooks.deliveries(pageNumber(queryString(request, 'page')), DELIVERIES_PER_PAGE);
    return sendPage(
      reply,
      webhooksPage(request, {
        endpoints: webhooks.endpoints,
        page,
        csrf: request.sessionOf('admin').csrfToken(),
        flash: takeFlash(request),
      }),
    );
  });

  app.post('/admin/webhooks/:id/retry', { preHandler }, async (request, reply) => {
    const id = idParam((request.params as Record<string, unknown>)['id']);
    const result = await webhooks.retry(id, auditContext(request));
    if (result === 'not_found') throw new NotFoundError();
    const text = request.t(`webhooks.flash.${result}`, { id });
    const kind = result === 'retried' ? 'ok' : 'error';
    return finishAction(request, reply, '/admin/webhooks', { kind, text }, 409);
  });
}
