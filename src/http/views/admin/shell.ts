import { type Html, html } from '../../../lib/html.ts';
import { csrfField } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';
import { type Flash, flashMessage } from './components.ts';

export type AdminSection = 'overview' | 'users' | 'organizations' | 'clients' | 'audit' | 'webhooks';

export interface AdminPageOptions {
  /** The document title (may start with an error count); the heading unless `heading` is given. */
  title: string;
  heading?: string;
  section: AdminSection;
  /** One line under the title. */
  lead?: Html | string;
  /** Buttons or links beside the title. */
  actions?: Html;
  flash?: Flash | null;
  body: Html;
}

/**
 * The panel's frame inside the shared layout (variant "admin"): a section bar with the signed-in
 * admin and a logout button, then the page's title, status message and content.
 */
export function adminPage(viewContext: ViewContext, options: AdminPageOptions): Html {
  const t = viewContext.t;
  const admin = viewContext.identity?.user;
  const csrf = viewContext.csrfToken('admin');
  const link = (section: AdminSection, href: string, label: string) =>
    html`<a href="${href}"${options.section === section ? html` aria-current="page"` : ''}>${label}</a>`;
  return layout(viewContext, {
    title: `${options.title} · ${t('admin.panel')}`,
    variant: 'admin',
    body: html`<div class="admin-bar">
  <span class="admin-mark">${t('admin.panel')}</span>
  <nav class="admin-nav" aria-label="${t('admin.panel')}">
    ${link('overview', '/admin', t('admin.nav.overview'))}
    ${link('users', '/admin/users', t('admin.nav.users'))}
    ${link('organizations', '/admin/orgs', t('orgs.title'))}
    ${link('clients', '/admin/clients', t('oauth.panel.title'))}
    ${link('audit', '/admin/audit', t('admin.nav.audit'))}
    ${link('webhooks', '/admin/webhooks', t('webhooks.title'))}
  </nav>
  <div class="admin-who">
    ${admin ? html`<span class="muted" title="${admin.email}">${admin.name}</span>` : ''}
    <form method="post" action="/admin/logout" class="inline">${csrfField(csrf)}<button type="submit" class="button secondary small">${t('pages.log_out')}</button></form>
  </div>
</div>
<div class="page-head">
  <div>
    <h1>${options.heading ?? options.title}</h1>
    ${options.lead ? html`<p class="lead">${options.lead}</p>` : ''}
  </div>
  ${options.actions ? html`<div class="page-actions">${options.actions}</div>` : ''}
</div>
${flashMessage(options.flash ?? null)}
${options.body}`,
  });
}
