import type { FastifyRequest } from 'fastify';
import type { Page } from '../../../admin/paging.ts';
import type { UserListQuery } from '../../../admin/user-directory.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { badge, emptyState, type Flash, pagination } from './components.ts';
import { dateOnly } from './format.ts';
import { adminPage } from './shell.ts';

/** The badges that summarise an account, shared by the list and the user page. */
export function userBadges(request: FastifyRequest, user: User, panelAllowed: boolean): Html {
  const t = request.t;
  return html`${user.disabledAt !== null ? badge(t('admin.user.disabled'), 'danger') : ''}
    ${user.emailVerifiedAt !== null ? badge(t('admin.user.verified'), 'ok') : badge(t('admin.user.unverified'), 'warn')}
    ${user.panelAccess ? badge(t('admin.user.admin'), panelAllowed ? 'accent' : 'muted') : ''}`;
}

export function usersListPage(
  request: FastifyRequest,
  query: UserListQuery,
  page: Page<User>,
  canAccessPanel: (user: User) => boolean,
  flash: Flash | null,
): Html {
  const t = request.t;
  const sortOption = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
  const rows = page.items.map(
    (user) => html`<tr>
      <td><a class="strong" href="/admin/users/${user.id}">${user.name}</a><br><span class="muted small">${user.email}</span></td>
      <td class="badges">${userBadges(request, user, canAccessPanel(user))}</td>
      <td class="nowrap">${dateOnly(request, user.createdAt)}</td>
      <td class="right"><a class="button secondary small" href="/admin/users/${user.id}">${t('admin.users.open')}</a></td>
    </tr>`,
  );
  return adminPage(request, {
    title: t('admin.nav.users'),
    section: 'users',
    lead: t('admin.users.lead', { count: page.total }),
    flash,
    body: html`<form class="toolbar" method="get" action="/admin/users" role="search">
  <label class="visually-hidden" for="user-search">${t('admin.users.search_label')}</label>
  <input id="user-search" type="search" name="q" value="${query.search}" placeholder="${t('admin.users.search_placeholder')}" autocomplete="off">
  <label class="visually-hidden" for="user-sort">${t('admin.users.sort_label')}</label>
  <select id="user-sort" name="sort">
    ${sortOption('newest', t('admin.users.sort_newest'), query.newestFirst)}
    ${sortOption('oldest', t('admin.users.sort_oldest'), !query.newestFirst)}
  </select>
  <button type="submit" class="button">${t('admin.users.search')}</button>
  ${query.search ? html`<a class="button secondary" href="/admin/users">${t('admin.users.clear')}</a>` : ''}
</form>
<section class="panel">
  ${
    page.items.length === 0
      ? emptyState(query.search ? t('admin.users.no_match', { search: query.search }) : t('admin.users.none'))
      : html`<div class="table-wrap"><table class="data">
    <thead><tr>
      <th scope="col">${t('admin.users.user')}</th>
      <th scope="col">${t('admin.users.status')}</th>
      <th scope="col"><a href="/admin/users?${new URLSearchParams({ ...(query.search ? { q: query.search } : {}), sort: query.newestFirst ? 'oldest' : 'newest' }).toString()}">${t('admin.users.created')} ${query.newestFirst ? '↓' : '↑'}</a></th>
      <th scope="col"><span class="visually-hidden">${t('admin.users.actions')}</span></th>
    </tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
  ${pagination(request, page)}
</section>`,
  });
}
