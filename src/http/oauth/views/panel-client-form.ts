import type { Translate } from '../../../i18n/i18n.ts';
import { type Html, html } from '../../../lib/html.ts';
import { GRANT_TYPES, type OauthClient } from '../../../oauth/clients.ts';
import { adminPage } from '../../views/admin/shell.ts';
import { csrfField, type FormState, formTitle, input } from '../../views/forms.ts';
import type { ViewContext } from '../../views/view-context.ts';

/**
 * GET /admin/clients/new (docs/guides/admin-panel.md "OpenID Connect clients"): what `clients:create`
 * asks, as a form — name, redirect and post-logout URIs one a line, grant types, public or
 * confidential, trusted. The rules are the CLI's; a refused form comes back with each problem at its field.
 */
export function newClientPage(request: ViewContext, state: FormState, csrf: string): Html {
  const t = request.t;
  const old = state.old ?? {};
  const picked = (grant: string) => {
    const value = old['grant_types'];
    if (value === undefined) return grant === 'authorization_code' || grant === 'refresh_token';
    return Array.isArray(value) ? value.includes(grant) : value === grant;
  };
  const type = old['client_type'] === 'public' ? 'public' : 'confidential';
  const radio = (value: string) =>
    html`<label><input type="radio" name="client_type" value="${value}"${type === value ? html` checked` : ''}> ${t(`oauth.panel.type_${value}`)}</label>`;
  return adminPage(request, {
    title: formTitle(t, t('oauth.panel.new_title'), state),
    heading: t('oauth.panel.new_title'),
    section: 'clients',
    lead: t('oauth.panel.new_lead'),
    actions: html`<a class="button secondary" href="/admin/clients">← ${t('oauth.panel.title')}</a>`,
    body: html`<section class="panel narrow-panel">
  <form method="post" action="/admin/clients" novalidate>
    ${csrfField(csrf)}
    ${uriFields(t, state, true)}
    <fieldset class="choices${state.errors?.['grant_types'] ? ' has-error' : ''}"${state.errors?.['grant_types'] ? html` aria-describedby="grant-types-error"` : ''}>
      <legend>${t('oauth.panel.fields.grant_types')}</legend>
      ${GRANT_TYPES.map((grant) => html`<label><input type="checkbox" name="grant_types" value="${grant}"${picked(grant) ? html` checked` : ''}> <span class="mono">${grant}</span></label>`)}
      ${state.errors?.['grant_types'] ? html`<p class="error" id="grant-types-error">${state.errors['grant_types'].join(' ')}</p>` : ''}
    </fieldset>
    ${input(t, state, { name: 'scope', label: t('oauth.panel.fields.scope'), autocomplete: 'off', hint: t('oauth.panel.scope_hint') })}
    <fieldset class="choices">
      <legend>${t('oauth.panel.type')}</legend>
      ${radio('confidential')}
      ${radio('public')}
    </fieldset>
    <div class="field checkbox"><label><input type="checkbox" name="trusted" value="1"${old['trusted'] === '1' ? html` checked` : ''}> ${t('oauth.panel.trusted_label')}</label></div>
    <div class="actions"><button type="submit" class="button">${t('oauth.panel.create')}</button></div>
  </form>
</section>`,
  });
}

/**
 * The name and URI fields of the create and edit forms. `client` fills them when nothing was submitted
 * (the edit form); `first` focuses the name.
 */
export function uriFields(t: Translate, state: FormState, first: boolean, client?: OauthClient): Html {
  const initial = (name: string, fallback: string) => {
    const value = state.old?.[name];
    return typeof value === 'string' ? value : fallback;
  };
  const filled: FormState =
    client === undefined || state.old !== undefined
      ? state
      : { ...state, old: { name: client.name, backchannel_logout_uri: client.backchannelLogoutUri ?? '' } };
  return html`${input(t, filled, { name: 'name', label: t('oauth.panel.fields.name'), autocomplete: 'off', required: true, autofocus: first })}
    ${textarea(t, state, 'redirect_uris', initial('redirect_uris', client?.redirectUris.join('\n') ?? ''), t('oauth.panel.uris_hint'))}
    ${textarea(t, state, 'post_logout_redirect_uris', initial('post_logout_redirect_uris', client?.postLogoutRedirectUris.join('\n') ?? ''), t('oauth.panel.uris_hint'))}
    ${input(t, filled, { name: 'backchannel_logout_uri', label: t('oauth.panel.fields.backchannel_logout_uri'), autocomplete: 'off', hint: t('oauth.panel.optional') })}`;
}

/** A labelled textarea of URIs, one a line, with its hint and error. */
function textarea(t: Translate, state: FormState, name: string, value: string, hint: string): Html {
  const id = `field-${name}`;
  const error = state.errors?.[name];
  const described = [`${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${t(`oauth.panel.fields.${name}`)}</label>
  <textarea id="${id}" name="${name}" rows="3" spellcheck="false" autocomplete="off" class="mono" aria-describedby="${described}"${error ? html` aria-invalid="true"` : ''}>${value}</textarea>
  <div class="hint" id="${id}-hint"><p>${hint}</p></div>
  ${error ? html`<p class="error" id="${id}-error">${error.join(' ')}</p>` : ''}
</div>`;
}
