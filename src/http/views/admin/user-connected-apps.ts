import { type Html, html } from '../../../lib/html.ts';
import type { ConnectedApp } from '../../../oauth/consents.ts';
import { cell } from '../table.ts';
import type { ViewContext } from '../view-context.ts';
import { listPanel } from './components.ts';
import { dateOnly, relativeTime } from './format.ts';

/**
 * The OpenID Connect clients the user allowed, on the panel's user page (docs/guides/admin-panel.md
 * "OpenID Connect clients"): name, scopes, first allowed, last used, and the client's own page. Read
 * only: the person disconnects an app on their account page; deleting the client ends it for everyone.
 */
export function connectedAppsSection(viewContext: ViewContext, apps: readonly ConnectedApp[]): Html {
  const t = viewContext.t;
  const label = {
    name: t('oauth.connected.app'),
    scopes: t('oauth.panel.fields.scope'),
    allowed: t('oauth.connected.first_authorized'),
    used: t('oauth.connected.last_used'),
  };
  return listPanel({
    id: 'connected-apps',
    title: t('account.section.connected-apps'),
    bulk: html``,
    headers: Object.values(label),
    actionsLabel: t('admin.users.actions'),
    rows: apps.map(
      (app) => html`<tr>
      ${cell(label.name, app.name, 'strong wrap')}
      ${cell(label.scopes, html`<span class="mono small wrap">${app.scopes.join(' ')}</span>`, 'wrap')}
      ${cell(label.allowed, dateOnly(viewContext, app.createdAt), 'nowrap')}
      ${cell(label.used, relativeTime(viewContext, app.lastUsedAt), 'nowrap')}
      <td class="right row-action"><a class="button secondary small" href="/admin/clients/${app.clientId}">${t('oauth.panel.show_client')}</a></td>
    </tr>`,
    ),
    empty: t('oauth.panel.user_no_apps'),
  });
}
