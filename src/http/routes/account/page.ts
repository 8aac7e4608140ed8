import type { FastifyInstance } from 'fastify';
import { sendPage } from '../../pages.ts';
import { requireVerifiedEmail } from '../web/support.ts';
import { ACCOUNT_GUARDS, accountPageHtml } from './support.ts';

/** GET /profile: the account page (CONTRACT §10); a session and a verified address (CONTRACT §4). */
export async function accountPageRoutes(app: FastifyInstance) {
  app.get(
    '/profile',
    { preHandler: [app.requireAuth(ACCOUNT_GUARDS), requireVerifiedEmail] },
    async (request, reply) => sendPage(reply, await accountPageHtml(request)),
  );
}
