import type { Overview } from '../../../admin/overview.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { ViewContext } from '../view-context.ts';
import { auditTable } from './audit-entries.ts';
import type { Flash } from './components.ts';
import { adminPage } from './shell.ts';

function stat(label: string, value: string, note: Html | string, href?: string, tone = ''): Html {
  const inner = html`<span class="stat-label">${label}</span><span class="stat-value">${value}</span><span class="stat-note">${note}</span>`;
  return href
    ? html`<a class="stat${tone ? ` stat-${tone}` : ''}" href="${href}">${inner}</a>`
    : html`<div class="stat${tone ? ` stat-${tone}` : ''}">${inner}</div>`;
}

export function adminHomePage(viewContext: ViewContext, overview: Overview, flash: Flash | null): Html {
  const t = viewContext.t;
  const n = (value: number) => new Intl.NumberFormat(viewContext.locale).format(value);
  const verifiedShare =
    overview.users === 0 ? 0 : Math.round((overview.verifiedUsers / overview.users) * 100);
  return adminPage(viewContext, {
    title: t('admin.nav.overview'),
    section: 'overview',
    lead: t('admin.home.lead', { name: viewContext.identity?.user.name ?? '' }),
    flash,
    body: html`<section class="stats" aria-label="${t('admin.home.numbers')}">
  ${stat(t('admin.home.users'), n(overview.users), `${t('admin.home.users_disabled', { count: overview.disabledUsers })} · ${t('admin.home.users_admins', { count: overview.panelUsers })}`, '/admin/users')}
  ${stat(t('admin.home.verified'), n(overview.verifiedUsers), t('admin.home.verified_note', { percent: verifiedShare }))}
  ${stat(t('admin.home.sessions'), n(overview.activeSessions), t('admin.home.sessions_note'))}
  ${stat(t('admin.home.tokens'), n(overview.liveTokens), t('admin.home.tokens_note'))}
  ${stat(t('admin.home.sign_ins'), n(overview.signIns24h), t('admin.home.last_24h'), '/admin/audit?group=sign_ins', 'ok')}
  ${stat(t('admin.home.failures'), n(overview.failures24h), t('admin.home.last_24h'), '/admin/audit?group=failures', overview.failures24h > 0 ? 'danger' : '')}
</section>
<div class="columns">
  <section class="panel">
    <header class="panel-head"><h2>${t('admin.home.recent_sign_ins')}</h2><a href="/admin/audit?group=sign_ins">${t('admin.home.see_all')}</a></header>
    ${auditTable(viewContext, overview.recentSignIns, { compact: true, emptyText: t('admin.home.no_sign_ins') })}
  </section>
  <section class="panel">
    <header class="panel-head"><h2>${t('admin.home.recent_failures')}</h2><a href="/admin/audit?group=failures">${t('admin.home.see_all')}</a></header>
    ${auditTable(viewContext, overview.recentFailures, { compact: true, emptyText: t('admin.home.no_failures') })}
  </section>
</div>`,
  });
}
