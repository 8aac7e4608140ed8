import { type Html, html } from '../../../../lib/html.ts';
import type { ConnectedApp } from '../../../../oauth/consents.ts';
import { scopeDescriptions } from '../../../oauth/views/scope-descriptions.ts';
import { timeTag } from '../../format.ts';
import { csrfField } from '../../forms.ts';
import { cell } from '../../table.ts';
import { type AccountPageContext, type AccountSection, sectionCard } from '../page.ts';

/**
 * Connected apps (docs/guides/oidc-provider.md "Connected apps"): each application the user allowed
 * to sign them in — what it may do in words, when it was first allowed and last used — and Disconnect
 * (a plain form with `_method`, behind a confirmation), which ends its access at once.
 */
export const connectedAppsSection: AccountSection = {
  id: 'connected-apps',
  async render(context) {
    const { t, user, services } = context;
    const apps = await services.oauth.consents.list(user.id);
    return sectionCard(
      this.id,
      t('account.section.connected-apps'),
      t('oauth.connected.lead', { app: services.config.appName }),
      apps.length === 0 ? html`<p class="empty">${t('oauth.connected.none')}</p>` : appTable(context, apps),
    );
  },
};

function appTable(context: AccountPageContext, apps: readonly ConnectedApp[]): Html {
  const { t, locale } = context;
  const appName = context.services.config.appName;
  const label = {
    app: t('oauth.connected.app'),
    access: t('oauth.connected.access'),
    allowed: t('oauth.connected.first_authorized'),
    used: t('oauth.connected.last_used'),
    action: t('oauth.connected.action'),
  };
  const row = (app: ConnectedApp) => {
    const access = html`<ul class="scope-list">${scopeDescriptions(t, app.scopes, appName).map((text) => html`<li>${text}</li>`)}</ul>`;
    const used = app.lastUsedAt === null ? t('oauth.connected.never_used') : timeTag(locale, app.lastUsedAt);
    const client = app.name;
    const disconnect = html`<details class="confirm"><summary class="button danger-outline small" aria-label="${t('oauth.connected.disconnect_of', { client })}">${t('oauth.connected.disconnect')}</summary>
      <div class="confirm-box" role="group">
        <p>${t('oauth.connected.disconnect_confirm', { client })}</p>
        <form method="post" action="/user/connected-apps/${encodeURIComponent(app.clientId)}" class="inline">${csrfField(context.csrfToken)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="button danger small">${t('oauth.connected.disconnect_yes')}</button></form>
      </div></details>`;
    return html`<tr>${cell(label.app, client, 'wrap')}${cell(label.access, access, 'wrap')}${cell(label.allowed, timeTag(locale, app.createdAt, 'local'))}${cell(label.used, used)}${cell(label.action, disconnect)}</tr>`;
  };
  return html`<div class="table-wrap"><table class="data connected-apps">
  <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${apps.map(row)}</tbody>
</table></div>`;
}
