import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../errors.ts';
import { sendPage } from '../../pages.ts';
import { requireVerifiedEmail } from '../../verified-email.ts';
import { ACCOUNT_AREAS } from '../../views/account/sections/index.ts';
import { ACCOUNT_GUARDS, accountPageHtml } from './support.ts';

/**
 * GET /profile and GET /profile/{area}: the account area (docs/guides/account.md), /profile opening its
 * first page; a session and a verified address (docs/guides/sessions-and-spas.md).
 */
export async function accountPageRoutes(app: FastifyInstance) {
  const preHandler = [app.requireAuth(ACCOUNT_GUARDS), requireVerifiedEmail];
  app.get('/profile', { preHandler }, async (request, reply) =>
    sendPage(reply, await accountPageHtml(request)),
  );
  app.get<{ Params: { area: string } }>('/profile/:area', { preHandler }, async (request, reply) => {
    // The first area is /profile itself: one address per page.
    const area = ACCOUNT_AREAS.slice(1).find((a) => a.id === request.params.area);
    if (area === undefined) throw new NotFoundError();
    return sendPage(reply, await accountPageHtml(request, undefined, area));
  });
}
