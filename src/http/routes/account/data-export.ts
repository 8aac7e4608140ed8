import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../errors.ts';
import { requirePasswordConfirmation } from '../../password-confirmation.ts';
import { auditContext } from '../../request-context.ts';
import { ACCOUNT_GUARDS } from './support.ts';

/**
 * GET /user/export (docs/guides/account.md): everything stored about the user as a JSON download, behind a
 * password confirmation (a session left open must not hand the account's history to whoever sits
 * down at it). What goes in, and what never does, is account/data-export.ts's business.
 */
export async function dataExportRoutes(app: FastifyInstance) {
  const { account, config } = app.services;
  const stem =
    config.appName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'account';

  app.get(
    '/user/export',
    { preHandler: [app.requireAuth(ACCOUNT_GUARDS), requirePasswordConfirmation] },
    async (request, reply) => {
      const audit = auditContext(request);
      const data = await account.exportData(request.identity!.user.id, audit);
      if (data === null) throw new NotFoundError();
      const date = new Date(audit.now).toISOString().slice(0, 10);
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${stem}-data-${date}.json"`)
        .header('cache-control', 'no-store')
        .send(JSON.stringify(data, null, 2));
    },
  );
}
