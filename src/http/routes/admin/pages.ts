import type { FastifyInstance } from 'fastify';
import { isAuditGroup } from '../../../admin/audit-log.ts';
import { pageNumber } from '../../../admin/paging.ts';
import { USER_FILTERS, type UserFilter } from '../../../admin/panel.repository.ts';
import type { User } from '../../../users/user.ts';
import { NotFoundError } from '../../errors.ts';
import { sendPage } from '../../pages.ts';
import { queryString } from '../../request-context.ts';
import { auditLogPage } from '../../views/admin/audit-log.ts';
import { adminHomePage } from '../../views/admin/home.ts';
import { userShowPage } from '../../views/admin/user-show.ts';
import { usersListPage } from '../../views/admin/users-list.ts';
import { idParam, takeFlash } from './support.ts';

const USERS_PER_PAGE = 25;
const AUDIT_PER_PAGE = 50;

/** The panel's pages (all GET, all behind the admin guard): overview, users, one user, audit log. */
export async function adminPageRoutes(app: FastifyInstance) {
  const { services } = app;
  const preHandler = app.requireAuth(['admin']);
  // The admin guard's provider: who may enter the panel (canAccessPanel), shown beside each user.
  const panelCheck = services.auth.providerOf('admin');

  app.get('/admin', { preHandler }, async (request, reply) => {
    const overview = await services.admin.overview(services.clock.now());
    return sendPage(reply, adminHomePage(request, overview, takeFlash(request)));
  });

  app.get('/admin/users', { preHandler }, async (request, reply) => {
    const filterInput = queryString(request, 'filter');
    const query = {
      search: queryString(request, 'q'),
      filter: (USER_FILTERS as readonly string[]).includes(filterInput) ? (filterInput as UserFilter) : 'all',
      newestFirst: queryString(request, 'sort') !== 'oldest',
      page: pageNumber(queryString(request, 'page')),
    };
    const page = await services.admin.searchUsers(query, USERS_PER_PAGE);
    const allowed = (user: User) => panelCheck.accepts(user);
    return sendPage(reply, usersListPage(request, query, page, allowed, takeFlash(request)));
  });

  app.get('/admin/users/:id', { preHandler }, async (request, reply) => {
    const id = idParam((request.params as Record<string, unknown>)['id']);
    const detail = await services.admin.userDetail(id, services.clock.now());
    if (detail === null) throw new NotFoundError();
    return sendPage(
      reply,
      userShowPage(request, {
        detail,
        panelAllowed: panelCheck.accepts(detail.user),
        isSelf: request.identity!.user.id === id,
        isOwner: (await services.admin.ownerId()) === id,
        twoFactor: await services.auth.twoFactor.state(id),
        csrf: request.sessionOf('admin').csrfToken(),
        flash: takeFlash(request),
        providerLabel: services.identities.labelOf,
      }),
    );
  });

  app.get('/admin/audit', { preHandler }, async (request, reply) => {
    const userInput = queryString(request, 'user');
    const groupInput = queryString(request, 'group');
    const group = isAuditGroup(groupInput) ? groupInput : null;
    const { user, page } = await services.admin.browseAuditLog(
      { userInput, group, page: pageNumber(queryString(request, 'page')) },
      AUDIT_PER_PAGE,
    );
    return sendPage(reply, auditLogPage(request, { userInput, user, group }, page));
  });
}
