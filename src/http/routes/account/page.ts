import type { FastifyInstance } from 'fastify';
import { sendPage } from '../../pages.ts';
import { requireVerifiedEmail } from '../../verified-email.ts';
import { ACCOUNT_GUARDS, accountPageHtml } from './support.ts';

/** GET /profile: the account page (docs/guides/account.md); a session and a verified address (docs/guides/sessions-and-spas.md). */
export async function accountPageRoutes(app: FastifyInstance) {
  app.get(
    '/profile',
    { preHandler: [app.requireAuth(ACCOUNT_GUARDS), requireVerifiedEmail] },
    async (request, reply) => sendPage(reply, await accountPageHtml(request)),
  );
}
