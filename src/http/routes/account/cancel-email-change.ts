import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PresentedLink } from '../../../auth/verification/email-verification.ts';
import { ForbiddenError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage } from '../../pages.ts';
import { auditContext } from '../../request-context.ts';
import { cancelEmailChangePage } from '../../views/pages/cancel-email-change.ts';

interface LinkRoute {
  Params: { id: string; hash: string };
  Querystring: { expires?: unknown; signature?: unknown };
}
type LinkRequest = FastifyRequest<LinkRoute>;

const presented = (request: LinkRequest): PresentedLink => ({
  id: request.params.id,
  hash: request.params.hash,
  expires: request.query.expires,
  signature: request.query.signature,
});

/**
 * GET/POST /email/cancel-change/{id}/{hash}?expires=&signature= (docs/guides/account.md): the link mailed
 * to the current address when a change to another one is asked for. No session is needed — the owner
 * may not be signed in where they read their mail; the signature names the account and the pending
 * address. The GET only shows what would be cancelled (mail scanners open links); the button, a form
 * with this browser's CSRF token, cancels. A link that no longer holds (bad, expired, or the change
 * confirmed, cancelled or replaced meanwhile) is 403.
 */
export async function cancelEmailChangeRoutes(app: FastifyInstance) {
  const { account } = app.services;
  const path = '/email/cancel-change/:id/:hash';

  const page = async (request: LinkRequest, reply: FastifyReply, pending: string | null, status?: string) => {
    // The link's signature is a secret for as long as it lives: no Referer may carry it onwards.
    reply.header('referrer-policy', 'no-referrer');
    const csrfToken = request.sessionOf('web').csrfToken();
    return sendPage(
      reply,
      cancelEmailChangePage(request, { pending, action: request.url, csrfToken, status }),
    );
  };

  app.get<LinkRoute>(path, async (request, reply) => {
    const target = await account.cancelLinkTarget(presented(request));
    if (target === null) throw new ForbiddenError('account.cancel_change_invalid');
    return page(request, reply, target.pending);
  });

  app.post<LinkRoute>(path, async (request, reply) => {
    if (!(await account.cancelEmailChangeByLink(presented(request), auditContext(request))))
      throw new ForbiddenError('account.cancel_change_invalid');
    if (expectsJson(request)) return reply.code(204).send();
    return page(request, reply, null, request.t('account.email_change_cancelled_by_link'));
  });
}
