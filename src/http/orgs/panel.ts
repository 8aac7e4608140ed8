import type { FastifyInstance } from 'fastify';
import { pageNumber } from '../../admin/paging.ts';
import { parseId } from '../../db/ids.ts';
import { NotFoundError } from '../errors.ts';
import { sendPage } from '../pages.ts';
import { queryString } from '../request-context.ts';
import { panelOrganizationPage, panelOrganizationsPage } from './views/panel.ts';

const ORGS_PER_PAGE = 25;

/** The panel's organizations (docs/guides/organizations.md): GET /admin/orgs and /admin/orgs/{id}, read only. */
export async function orgPanelRoutes(app: FastifyInstance) {
  const { orgs, clock } = app.services;
  const preHandler = app.requireAuth(['admin']);

  app.get('/admin/orgs', { preHandler }, async (request, reply) => {
    const search = queryString(request, 'q');
    const page = await orgs.panel.browse(
      { search, page: pageNumber(queryString(request, 'page')) },
      ORGS_PER_PAGE,
    );
    return sendPage(reply, panelOrganizationsPage(request, search, page));
  });

  app.get('/admin/orgs/:id', { preHandler }, async (request, reply) => {
    const id = parseId((request.params as { id?: unknown }).id);
    const org = id === null ? null : await orgs.panel.record(id, clock.now());
    if (org === null) throw new NotFoundError();
    return sendPage(reply, panelOrganizationPage(request, org));
  });
}
