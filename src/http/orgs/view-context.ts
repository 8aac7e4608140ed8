import type { FastifyRequest } from 'fastify';
import { CURRENT_ORG, flashedStatus } from './support.ts';
import type { OrgView } from './views/frame.ts';

/**
 * The view context of an organization page: the signed-in user, their memberships (the per-request
 * lookup, services.orgs.membershipsOf) and the session's current organization, kept only while it is
 * still one of them.
 */
export async function orgView(request: FastifyRequest): Promise<OrgView> {
  const session = await request.sessionOf('web').load();
  const user = request.identity!.user;
  const memberships = await request.server.services.orgs.membershipsOf(user.id);
  const chosen = session.get(CURRENT_ORG);
  const currentId = memberships.some((m) => m.id === chosen) ? (chosen as number) : null;
  return {
    request,
    user,
    csrfToken: session.csrfToken(),
    memberships,
    currentId,
    status: await flashedStatus(request),
  };
}
