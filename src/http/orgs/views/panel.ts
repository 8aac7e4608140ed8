import type { Page } from '../../../admin/paging.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { OrgListing, OrgRecord } from '../../../orgs/directory.ts';
import { emptyState, listPanel, pagination } from '../../views/admin/components.ts';
import { dateOnly, dateTime } from '../../views/admin/format.ts';
import { adminPage } from '../../views/admin/shell.ts';
import { cell } from '../../views/table.ts';
import type { ViewContext } from '../../views/view-context.ts';
import { roleLabel } from './frame.ts';

/** /admin/orgs: every organization, searchable by name or slug, newest first. */
export function panelOrganizationsPage(request: ViewContext, search: string, page: Page<OrgListing>): Html {
  const t = request.t;
  const label = {
    name: t('orgs.name'),
    slug: t('orgs.slug'),
    members: t('orgs.members'),
    created: t('orgs.panel.created'),
  };
  const rows = page.items.map(
    (org) => html`<tr>
      ${cell(label.name, html`<a class="strong" href="/admin/orgs/${org.id}">${org.name}</a>`, 'wrap')}
      ${cell(label.slug, html`<code>${org.slug}</code>`)}
      ${cell(label.members, String(org.members), 'nowrap')}
      ${cell(label.created, dateOnly(request, org.createdAt), 'nowrap')}
    </tr>`,
  );
  return adminPage(request, {
    title: t('orgs.title'),
    section: 'organizations',
    lead: t('orgs.panel.lead', { count: page.total }),
    body: html`<form class="toolbar" method="get" action="/admin/orgs" role="search">
  <label class="visually-hidden" for="org-search">${t('orgs.panel.search_label')}</label>
  <input id="org-search" type="search" name="q" value="${search}" placeholder="${t('orgs.panel.search_placeholder')}" autocomplete="off">
  <button type="submit" class="button">${t('admin.users.search')}</button>
  ${search ? html`<a class="button secondary" href="/admin/orgs">${t('admin.users.clear')}</a>` : ''}
</form>
<section class="panel">
  ${
    page.items.length === 0
      ? emptyState(search ? t('orgs.panel.no_match', { search }) : t('orgs.panel.none'))
      : html`<div class="table-wrap"><table class="data">
    <thead><tr><th scope="col">${label.name}</th><th scope="col">${label.slug}</th><th scope="col">${label.members}</th><th scope="col">${label.created}</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
  ${pagination(request, page)}
</section>`,
  });
}

/** /admin/orgs/{id}: the members with their roles, and the pending invitations. */
export function panelOrganizationPage(request: ViewContext, org: OrgRecord): Html {
  const t = request.t;
  const none = html`<span class="muted">—</span>`;
  const members = org.members.map(
    (m) => html`<tr>
      ${cell(t('orgs.member'), html`<a href="/admin/users/${m.id}">${m.name}</a><br><span class="muted small wrap">${m.email}</span>`, 'wrap')}
      ${cell(t('orgs.role'), roleLabel(t, m.role))}
      ${cell(t('orgs.panel.joined'), dateOnly(request, m.joinedAt), 'nowrap')}
      <td class="right row-action">${none}</td>
    </tr>`,
  );
  const invitations = org.invitations.map(
    (i) => html`<tr>
      ${cell(t('orgs.email'), i.email, 'wrap')}
      ${cell(t('orgs.role'), roleLabel(t, i.role))}
      ${cell(t('orgs.expires'), dateTime(request, i.expiresAt), 'nowrap')}
      <td class="right row-action">${none}</td>
    </tr>`,
  );
  return adminPage(request, {
    title: org.name,
    section: 'organizations',
    lead: html`<code>${org.slug}</code> · ${t('orgs.panel.created')} ${dateOnly(request, org.createdAt)}`,
    body: html`<div class="stack">
${listPanel({
  id: 'members',
  title: t('orgs.members'),
  bulk: html``,
  headers: [t('orgs.member'), t('orgs.role'), t('orgs.panel.joined')],
  actionsLabel: t('orgs.actions'),
  rows: members,
  empty: t('orgs.panel.no_members'),
})}
${listPanel({
  id: 'invitations',
  title: t('orgs.pending'),
  bulk: html``,
  headers: [t('orgs.email'), t('orgs.role'), t('orgs.expires')],
  actionsLabel: t('orgs.actions'),
  rows: invitations,
  empty: t('orgs.no_pending'),
})}
</div>`,
  });
}
