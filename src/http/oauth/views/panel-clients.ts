import { type Html, html } from '../../../lib/html.ts';
import type { OauthClient } from '../../../oauth/clients.ts';
import { badge, confirmAction, emptyState, type Flash } from '../../views/admin/components.ts';
import { dateTime } from '../../views/admin/format.ts';
import { adminPage } from '../../views/admin/shell.ts';
import { csrfField, type FormState, formTitle } from '../../views/forms.ts';
import { cell } from '../../views/table.ts';
import type { ViewContext } from '../../views/view-context.ts';
import { uriFields } from './panel-client-form.ts';

/** A secret to show once: after a registration or a rotation, on the client's page, never again. */
export interface ShownSecret {
  readonly clientId: string;
  readonly secret: string;
}

/** GET /admin/clients (docs/guides/admin-panel.md "OpenID Connect clients"): every registered client. */
export function clientsPage(request: ViewContext, clients: readonly OauthClient[], flash: Flash | null) {
  const t = request.t;
  const label = {
    name: t('oauth.panel.fields.name'),
    id: t('oauth.panel.client_id'),
    type: t('oauth.panel.type'),
    created: t('oauth.panel.created'),
  };
  const rows = clients.map(
    (client) => html`<tr>
      ${cell(label.name, html`<a href="/admin/clients/${client.clientId}">${client.name}</a>`, 'wrap')}
      ${cell(label.id, html`<span class="mono small wrap">${client.clientId}</span>`, 'wrap')}
      ${cell(label.type, typeBadges(request, client))}
      ${cell(label.created, dateTime(request, client.createdAt), 'nowrap')}
    </tr>`,
  );
  return adminPage(request, {
    title: t('oauth.panel.title'),
    section: 'clients',
    lead: t('oauth.panel.lead'),
    flash,
    actions: html`<a class="button" href="/admin/clients/new">${t('oauth.panel.new_title')}</a>`,
    body: html`<section class="panel" id="clients">
  <header class="panel-head"><h2>${t('oauth.panel.registered')} <span class="count">${clients.length}</span></h2></header>
  ${
    clients.length === 0
      ? emptyState(t('oauth.panel.none'))
      : html`<div class="table-wrap"><table class="data clients">
    <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
</section>`,
  });
}

export interface ClientView {
  readonly client: OauthClient;
  readonly csrf: string;
  readonly flash: Flash | null;
  /** The secret just made, shown this once. */
  readonly secret: string | null;
  /** The edit form's state after a refused change. */
  readonly edit: FormState;
}

/** GET /admin/clients/{id}: the client's facts, the secret once, edit, rotate secret, delete. */
export function clientPage(request: ViewContext, view: ClientView): Html {
  const t = request.t;
  const { client, csrf } = view;
  const list = (values: readonly string[]) =>
    values.length === 0
      ? html`<span class="muted">—</span>`
      : html`${values.map((value, i) => html`${i > 0 ? html`<br>` : ''}<span class="mono small wrap">${value}</span>`)}`;
  const base = `/admin/clients/${client.clientId}`;
  const secret =
    view.secret === null
      ? ''
      : html`<div class="status new-token" role="status">
    <p>${t('oauth.panel.secret_once')}</p>
    <ul class="token-secret" id="client-secret"><li><code class="wrap">${view.secret}</code></li></ul>
  </div>`;
  return adminPage(request, {
    title: formTitle(t, client.name, view.edit),
    heading: client.name,
    section: 'clients',
    lead: html`<span class="mono wrap">${client.clientId}</span> ${typeBadges(request, client)}`,
    flash: view.flash,
    actions: html`<a class="button secondary" href="/admin/clients">← ${t('oauth.panel.title')}</a>`,
    body: html`${secret}<section class="panel">
  <header class="panel-head"><h2>${t('oauth.panel.details')}</h2></header>
  <dl class="facts">
    <div><dt>${t('oauth.panel.client_id')}</dt><dd class="mono wrap">${client.clientId}</dd></div>
    <div><dt>${t('oauth.panel.fields.redirect_uris')}</dt><dd>${list(client.redirectUris)}</dd></div>
    <div><dt>${t('oauth.panel.fields.post_logout_redirect_uris')}</dt><dd>${list(client.postLogoutRedirectUris)}</dd></div>
    <div><dt>${t('oauth.panel.fields.backchannel_logout_uri')}</dt><dd>${list(client.backchannelLogoutUri === null ? [] : [client.backchannelLogoutUri])}</dd></div>
    <div><dt>${t('oauth.panel.fields.grant_types')}</dt><dd>${list(client.grantTypes)}</dd></div>
    <div><dt>${t('oauth.panel.fields.scope')}</dt><dd>${list(client.scope.split(' ').filter(Boolean))}</dd></div>
    <div><dt>${t('oauth.panel.created')}</dt><dd>${dateTime(request, client.createdAt)}</dd></div>
    <div><dt>${t('oauth.panel.secret_rotated')}</dt><dd>${client.public ? t('oauth.panel.no_secret') : dateTime(request, client.secretRotatedAt)}</dd></div>
  </dl>
</section>
<section class="panel narrow-panel" id="edit">
  <header class="panel-head"><h2>${t('oauth.panel.edit')}</h2></header>
  <form method="post" action="${base}" novalidate>
    ${csrfField(csrf)}
    ${uriFields(t, view.edit, false, client)}
    <div class="actions"><button type="submit" class="button">${t('oauth.panel.save')}</button></div>
  </form>
</section>
<section class="panel">
  <header class="panel-head"><h2>${t('oauth.panel.manage')}</h2></header>
  <div class="settings">
    ${
      client.public
        ? ''
        : html`<div class="setting"><div><strong>${t('oauth.panel.rotate')}</strong><p class="muted small">${t('oauth.panel.rotate_hint')}</p></div>${confirmAction({ action: `${base}/rotate-secret`, label: t('oauth.panel.rotate'), question: t('oauth.panel.rotate_confirm', { client: client.name }), csrf, small: true })}</div>`
    }
    <div class="setting"><div><strong>${t('oauth.panel.delete')}</strong><p class="muted small">${t('oauth.panel.delete_hint')}</p></div>${confirmAction({ action: `${base}/delete`, label: t('oauth.panel.delete'), question: t('oauth.panel.delete_confirm', { client: client.name }), csrf, small: true })}</div>
  </div>
</section>`,
  });
}

function typeBadges(request: ViewContext, client: OauthClient): Html {
  const t = request.t;
  return html`${badge(t(client.public ? 'oauth.panel.badge_public' : 'oauth.panel.badge_confidential'), 'muted')}${client.trusted ? html` ${badge(t('oauth.panel.trusted'), 'accent')}` : ''}`;
}
