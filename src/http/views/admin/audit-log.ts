import { AUDIT_GROUPS, type AuditEntry, type AuditGroup } from '../../../admin/audit-log.ts';
import type { Page } from '../../../admin/paging.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import type { ViewContext } from '../view-context.ts';
import { auditTable } from './audit-entries.ts';
import { emptyState, pagination } from './components.ts';
import { adminPage } from './shell.ts';

export interface AuditFilter {
  /** What was typed in the user box (an e-mail address or an id). */
  readonly userInput: string;
  /** The user it names; null when the box is empty or names nobody. */
  readonly user: User | null;
  readonly group: AuditGroup | null;
}

export function auditLogPage(viewContext: ViewContext, filter: AuditFilter, page: Page<AuditEntry>): Html {
  const t = viewContext.t;
  const groups = Object.keys(AUDIT_GROUPS) as AuditGroup[];
  const unknownUser = filter.userInput !== '' && filter.user === null;
  const lead = filter.user
    ? html`${t('admin.audit.lead_user')} <a href="/admin/users/${filter.user.id}">${filter.user.name}</a> <span class="muted">(${filter.user.email})</span>`
    : t('admin.audit.lead');
  return adminPage(viewContext, {
    title: t('admin.nav.audit'),
    section: 'audit',
    lead,
    body: html`<form class="toolbar" method="get" action="/admin/audit" role="search">
  <label class="visually-hidden" for="audit-user">${t('admin.audit.user_label')}</label>
  <input id="audit-user" type="search" name="user" value="${filter.userInput}" placeholder="${t('admin.audit.user_placeholder')}" autocomplete="off">
  <label class="visually-hidden" for="audit-group">${t('admin.audit.group_label')}</label>
  <select id="audit-group" name="group">
    <option value="">${t('admin.audit.groups.all')}</option>
    ${groups.map((g) => html`<option value="${g}"${filter.group === g ? html` selected` : ''}>${t(`admin.audit.groups.${g}`)}</option>`)}
  </select>
  <button type="submit" class="button">${t('admin.audit.filter')}</button>
  ${filter.userInput || filter.group ? html`<a class="button secondary" href="/admin/audit">${t('admin.users.clear')}</a>` : ''}
</form>
<section class="panel">
  ${
    unknownUser
      ? emptyState(t('admin.audit.unknown_user', { user: filter.userInput }))
      : html`${auditTable(viewContext, page.items, { emptyText: t('admin.audit.none') })}${pagination(viewContext, page)}`
  }
</section>`,
  });
}
