import type { Page } from '../../../admin/paging.ts';
import { USER_FILTERS } from '../../../admin/panel.repository.ts';
import type { UserListItem, UserListQuery } from '../../../admin/user-directory.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { cell } from '../table.ts';
import type { ViewContext } from '../view-context.ts';
import { badge, emptyState, type Flash, pagination } from './components.ts';
import { dateOnly, emailAddress } from './format.ts';
import { adminPage } from './shell.ts';

/** The badges that summarise an account, shared by the list and the user page. */
export function userBadges(viewContext: ViewContext, user: User, panelAllowed: boolean): Html {
  const t = viewContext.t;
  return html`${user.disabledAt !== null ? badge(t('admin.user.disabled'), 'danger') : ''}
    ${user.emailVerifiedAt !== null ? badge(t('admin.user.verified'), 'ok') : badge(t('admin.user.unverified'), 'warn')}
    ${user.panelAccess ? badge(t('admin.user.admin'), panelAllowed ? 'accent' : 'muted') : ''}`;
}

export function usersListPage(
  viewContext: ViewContext,
  query: UserListQuery,
  page: Page<UserListItem>,
  canAccessPanel: (user: User) => boolean,
  flash: Flash | null,
): Html {
  const t = viewContext.t;
  const sortOption = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
  const label = {
    user: t('admin.users.user'),
    status: t('admin.users.status'),
    twoFactor: t('admin.users.two_factor'),
    passkeys: t('admin.users.passkeys'),
    created: t('admin.users.created'),
  };
  const rows = page.items.map(
    ({ user, twoFactor, passkeys }) => html`<tr>
      ${cell(label.user, html`<a class="strong" href="/admin/users/${user.id}">${user.name}</a><br>${emailAddress(user.email, 'muted small')}`)}
      ${cell(label.status, userBadges(viewContext, user, canAccessPanel(user)), 'badges')}
      ${cell(label.twoFactor, twoFactor ? badge(t('two_factor.badge_on'), 'ok') : html`<span class="muted">${t('two_factor.badge_off')}</span>`, 'nowrap')}
      ${cell(label.passkeys, passkeys === 0 ? html`<span class="muted">0</span>` : String(passkeys), 'nowrap num')}
      ${cell(label.created, dateOnly(viewContext, user.createdAt), 'nowrap')}
      <td class="right row-action"><a class="button secondary small" href="/admin/users/${user.id}">${t('admin.users.open')}</a></td>
    </tr>`,
  );
  const filtered = query.search !== '' || query.filter !== 'all';
  const sortLink = new URLSearchParams({
    ...(query.search ? { q: query.search } : {}),
    ...(query.filter !== 'all' ? { filter: query.filter } : {}),
    sort: query.newestFirst ? 'oldest' : 'newest',
  });
  return adminPage(viewContext, {
    title: t('admin.nav.users'),
    section: 'users',
    lead: t('admin.users.lead', { count: page.total }),
    actions: html`<a class="button" href="/admin/users/new">${t('admin.invite.title')}</a>`,
    flash,
    body: html`<form class="toolbar" method="get" action="/admin/users" role="search">
  <label class="visually-hidden" for="user-search">${t('admin.users.search_label')}</label>
  <input id="user-search" type="search" name="q" value="${query.search}" placeholder="${t('admin.users.search_placeholder')}" autocomplete="off">
  <label class="visually-hidden" for="user-filter">${t('admin.users.filter_label')}</label>
  <select id="user-filter" name="filter">
    ${USER_FILTERS.map((f) => html`<option value="${f}"${query.filter === f ? html` selected` : ''}>${t(`admin.users.filters.${f}`)}</option>`)}
  </select>
  <label class="visually-hidden" for="user-sort">${t('admin.users.sort_label')}</label>
  <select id="user-sort" name="sort">
    ${sortOption('newest', t('admin.users.sort_newest'), query.newestFirst)}
    ${sortOption('oldest', t('admin.users.sort_oldest'), !query.newestFirst)}
  </select>
  <button type="submit" class="button">${t('admin.users.search')}</button>
  ${filtered ? html`<a class="button secondary" href="/admin/users">${t('admin.users.clear')}</a>` : ''}
</form>
<section class="panel">
  ${
    page.items.length === 0
      ? emptyState(
          query.search
            ? t('admin.users.no_match', { search: query.search })
            : query.filter !== 'all'
              ? t('admin.users.no_filter_match')
              : t('admin.users.none'),
        )
      : html`<div class="table-wrap"><table class="data">
    <thead><tr>
      <th scope="col">${t('admin.users.user')}</th>
      <th scope="col">${t('admin.users.status')}</th>
      <th scope="col">${label.twoFactor}</th>
      <th scope="col">${label.passkeys}</th>
      <th scope="col"><a href="/admin/users?${sortLink.toString()}">${t('admin.users.created')} ${query.newestFirst ? '↓' : '↑'}</a></th>
      <th scope="col"><span class="visually-hidden">${t('admin.users.actions')}</span></th>
    </tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
  ${pagination(viewContext, page)}
</section>`,
  });
}
