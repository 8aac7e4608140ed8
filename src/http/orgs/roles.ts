import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../errors.ts';
import { expectsJson } from '../negotiation.ts';
import { sendPage } from '../pages.ts';
import { ORG_GUARDS, slugParam } from './support.ts';
import { orgView } from './view-context.ts';
import { rolesPage } from './views/roles.ts';

/** GET /orgs/{slug}/roles (members): the roles and their abilities (ORG_ROLES, docs/guides/organizations.md). */
export async function roleRoutes(app: FastifyInstance) {
  const { orgs, clock } = app.services;
  app.get('/orgs/:slug/roles', { preHandler: [app.requireAuth(ORG_GUARDS)] }, async (request, reply) => {
    const org = await orgs.detail(slugParam(request), request.identity!.user.id, clock.now());
    if (org === null) throw new NotFoundError();
    if (expectsJson(request)) {
      return { data: orgs.roles.names.map((name) => ({ name, abilities: orgs.roles.abilitiesOf(name) })) };
    }
    return sendPage(reply, rolesPage(await orgView(request), org, orgs.roles));
  });
}
