import type { FastifyInstance } from 'fastify';
import { isAuditGroup, listAuditEntries } from '../../../admin/audit-log.ts';
import { loadOverview } from '../../../admin/overview.ts';
import { loadUserDetail, pageNumber, searchUsers, toPage } from '../../../admin/user-directory.ts';
import { isEmail } from '../../../lib/validation.ts';
import { normaliseEmail, toUser, type User } from '../../../users/user.ts';
import { findUserByEmail, findUserById } from '../../../users/users.repository.ts';
import { NotFoundError } from '../../errors.ts';
import { auditLogPage } from '../../views/admin/audit-log.ts';
import { adminHomePage } from '../../views/admin/home.ts';
import { userShowPage } from '../../views/admin/user-show.ts';
import { usersListPage } from '../../views/admin/users-list.ts';
import { sendPage } from '../web/support.ts';
import { ADMIN_PROVIDER, idParam, queryString, requireAdmin, takeFlash } from './support.ts';

const USERS_PER_PAGE = 25;
const AUDIT_PER_PAGE = 50;

/** The panel's pages (all GET, all behind requireAdmin): overview, users, one user, audit log. */
export async function adminPageRoutes(app: FastifyInstance) {
  const { services } = app;
  const { db } = services.database;
  const preHandler = requireAdmin(app);
  const panelCheck = app.userProviders.get(ADMIN_PROVIDER)!;
  const web = app.sessionGuards.get('web')!;

  app.get('/admin', { preHandler }, async (request, reply) => {
    const idleMinutes = Object.fromEntries(
      [...app.sessionGuards.values()].map((g) => [g.guard, g.lifetimes.idleMinutes]),
    );
    const overview = await loadOverview(
      db,
      { tokens: services.tokens, idleMinutes, absoluteMinutes: web.lifetimes.absoluteMinutes },
      services.clock.now(),
    );
    return sendPage(reply, adminHomePage(request, overview, takeFlash(request)));
  });

  app.get('/admin/users', { preHandler }, async (request, reply) => {
    const query = {
      search: queryString(request, 'q'),
      newestFirst: queryString(request, 'sort') !== 'oldest',
      page: pageNumber(queryString(request, 'page')),
    };
    const page = await searchUsers(db, query, USERS_PER_PAGE);
    const allowed = (user: User) => panelCheck.accepts(user);
    return sendPage(reply, usersListPage(request, query, page, allowed, takeFlash(request)));
  });

  app.get('/admin/users/:id', { preHandler }, async (request, reply) => {
    const id = idParam((request.params as Record<string, unknown>)['id']);
    const detail = await loadUserDetail(
      db,
      { tokens: services.tokens, webSessions: web.lifetimes },
      id,
      services.clock.now(),
    );
    if (detail === null) throw new NotFoundError();
    return sendPage(
      reply,
      userShowPage(request, {
        detail,
        panelAllowed: panelCheck.accepts(detail.user),
        isSelf: request.identity!.user.id === id,
        csrf: request.sessionOf('admin').csrfToken(),
        flash: takeFlash(request),
      }),
    );
  });

  app.get('/admin/audit', { preHandler }, async (request, reply) => {
    const userInput = queryString(request, 'user');
    const groupInput = queryString(request, 'group');
    const group = isAuditGroup(groupInput) ? groupInput : null;
    const user = await findFilterUser(userInput);
    let page = pageNumber(queryString(request, 'page'));
    const list = (n: number) =>
      listAuditEntries(db, {
        ...(user ? { userId: user.id } : {}),
        ...(group ? { group } : {}),
        limit: AUDIT_PER_PAGE,
        offset: (n - 1) * AUDIT_PER_PAGE,
      });
    let result = userInput !== '' && user === null ? { entries: [], total: 0 } : await list(page);
    if (result.entries.length === 0 && result.total > 0 && page > 1) {
      page = Math.ceil(result.total / AUDIT_PER_PAGE);
      result = await list(page);
    }
    return sendPage(
      reply,
      auditLogPage(
        request,
        { userInput, user, group },
        toPage(result.entries, result.total, page, AUDIT_PER_PAGE),
      ),
    );
  });

  /** The audit filter accepts an id ("42" or "#42") or an e-mail address. */
  async function findFilterUser(input: string): Promise<User | null> {
    const id = /^#?(\d{1,9})$/.exec(input)?.[1];
    const row = id
      ? await findUserById(db, Number(id))
      : isEmail(input)
        ? await findUserByEmail(db, normaliseEmail(input))
        : undefined;
    return row ? toUser(row) : null;
  }
}
