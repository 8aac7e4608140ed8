import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PresentedInvitation } from '../../orgs/invitation-links.ts';
import { expectsJson } from '../negotiation.ts';
import { sendPage } from '../pages.ts';
import { auditContext, formBody } from '../request-context.ts';
import { done, ORG_GUARDS } from './support.ts';
import { orgView } from './view-context.ts';
import { invitationPage, type LinkFields } from './views/invitation.ts';

/** How a link that cannot be accepted is answered: always 403, the reason in words (and on the page). */
const REFUSED_MESSAGE = {
  invalid: 'orgs.invitation.invalid',
  expired: 'orgs.invitation.expired',
  other_address: 'orgs.invitation.other_address',
  unverified: 'orgs.invitation.unverified',
} as const;

/**
 * GET /org-invitations/{id}?token=&expires=&signature= — the link of an invitation mail — and
 * POST /org-invitations/{id} (docs/guides/organizations.md). A guest is sent to /login and comes back here
 * (the web guard remembers the URL); the page shows what the link offers and asks before anything
 * changes. Only the account whose verified address was invited can accept; any other answer is 403
 * and changes nothing.
 */
export async function acceptRoutes(app: FastifyInstance) {
  const { orgs, clock } = app.services;
  const web = app.requireAuth(ORG_GUARDS);

  const presented = (request: FastifyRequest, source: Record<string, unknown>): PresentedInvitation => ({
    id: String((request.params as { id?: unknown }).id ?? ''),
    token: source['token'],
    expires: source['expires'],
    signature: source['signature'],
  });
  const fields = (link: PresentedInvitation): LinkFields => ({
    id: link.id,
    token: typeof link.token === 'string' ? link.token : '',
    expires: typeof link.expires === 'string' ? link.expires : '',
    signature: typeof link.signature === 'string' ? link.signature : '',
  });

  const refused = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: keyof typeof REFUSED_MESSAGE,
    link: PresentedInvitation,
  ) => {
    const message = request.t(REFUSED_MESSAGE[status]);
    if (expectsJson(request)) return reply.code(403).send({ message });
    return sendPage(reply, invitationPage(await orgView(request), { status }, fields(link)), 403);
  };

  app.get('/org-invitations/:id', { preHandler: [web] }, async (request, reply) => {
    const link = presented(request, request.query as Record<string, unknown>);
    const status = await orgs.invitation(link, request.identity!.user, clock.now());
    if (status.status !== 'open') return refused(request, reply, status.status, link);
    if (expectsJson(request)) return { organization: status.organization };
    return sendPage(reply, invitationPage(await orgView(request), status, fields(link)));
  });

  // The page's form posts the link's parts as fields; a JSON client may post to the mailed URL itself,
  // its parts in the query. A field sent in the body wins.
  app.post('/org-invitations/:id', { preHandler: [web] }, async (request, reply) => {
    const link = presented(request, { ...(request.query as Record<string, unknown>), ...formBody(request) });
    const result = await orgs.accept(link, request.identity!.user, auditContext(request));
    if (result.status !== 'accepted' && result.status !== 'already_member') {
      return refused(request, reply, result.status, link);
    }
    const { organization } = result;
    if (expectsJson(request)) return reply.code(result.status === 'accepted' ? 201 : 200).send(organization);
    return done(
      request,
      reply,
      `/orgs/${organization.slug}`,
      request.t('orgs.joined', { name: organization.name }),
    );
  });
}
