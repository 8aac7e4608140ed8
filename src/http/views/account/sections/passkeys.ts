import { type Html, html } from '../../../../lib/html.ts';
import type { PasskeySummary } from '../../../../passkeys/passkeys.repository.ts';
import { timeTag } from '../../format.ts';
import { csrfField, type FormState, input } from '../../forms.ts';
import { securityError } from '../../pages/login.ts';
import { cell } from '../../table.ts';
import { type AccountPageContext, type AccountSection, sectionCard, sectionState } from '../page.ts';

/** The key of one passkey's rename form among the account area's forms (its errors, its input). */
export function renameSection(passkeyId: number): string {
  return `passkeys/rename-${passkeyId}`;
}

/**
 * Passkeys (docs/guides/passkeys.md): the list (added, last used), rename and delete as plain forms (`_method`),
 * and "Add a passkey": a form with the name that /assets/passkeys.js completes with the browser's own
 * dialog. Every action is password-confirmed on the server; an expired confirmation sends the browser
 * to the form and back here. Offered whatever the two-factor setting is.
 */
export const passkeysSection: AccountSection = {
  id: 'passkeys',
  scripts: ['/assets/passkeys.js'],
  async render(context) {
    const { t, user } = context;
    const passkeys = await context.services.passkeys.list(user.id);
    return sectionCard(
      this.id,
      t('account.section.passkeys'),
      t('passkeys.lead'),
      html`${passkeys.length === 0 ? html`<p class="empty">${t('passkeys.none')}</p>` : passkeyTable(context, passkeys)}
  ${addForm(context, sectionState(context, this.id))}`,
    );
  },
};

function addForm(context: AccountPageContext, state: FormState): Html {
  const { t } = context;
  const party = context.services.passkeys.relyingParty;
  // APP_URL names an IP address: every browser would refuse the ceremony, so say why instead of offering it.
  if (!party.usable)
    return html`<p class="notice" role="note">${t('passkeys.ip_address', { host: party.id })}</p>`;
  const error = state.errors?.['credential']?.[0];
  return html`<form method="post" action="/user/passkeys" novalidate class="passkey-add" data-passkey-register data-options="/user/passkeys/options" data-error-cancelled="${t('passkeys.cancelled')}" data-error-exists="${t('passkeys.already_registered')}" data-error-failed="${t('passkeys.request_failed')}" data-error-security="${securityError(t, party.origin, '/profile#passkeys')}">
    <h3>${t('passkeys.add_title')}</h3>
    ${csrfField(context.csrfToken)}
    <input type="hidden" name="credential" value="">
    ${input(t, state, { name: 'name', id: 'field-passkey-name', label: t('passkeys.name_label'), required: true, autocomplete: 'off', hint: t('passkeys.name_hint') })}
    <p class="error" id="passkey-add-error" data-passkey-error role="alert"${error ? '' : html` hidden`}>${error ?? ''}</p>
    <div class="actions">
      <button type="submit" class="button" hidden>${t('passkeys.add')}</button>
      <p class="hint" data-passkey-unsupported hidden>${t('passkeys.unsupported')}</p>
      <noscript><p class="hint">${t('passkeys.needs_script')}</p></noscript>
    </div>
  </form>`;
}

function passkeyTable(context: AccountPageContext, passkeys: readonly PasskeySummary[]): Html {
  const { t } = context;
  const when = (ms: number | null, mode: 'relative' | 'local') =>
    ms === null ? t('passkeys.never_used') : timeTag(context.locale, ms, mode);
  const label = {
    name: t('passkeys.name'),
    created: t('passkeys.created'),
    lastUsed: t('passkeys.last_used'),
    action: t('passkeys.action'),
  };
  const row = (passkey: PasskeySummary) => {
    const action = `/user/passkeys/${passkey.id}`;
    const rename = renameForm(context, passkey);
    const remove = html`<details class="confirm"><summary class="button danger-outline small" aria-label="${t('passkeys.delete_of', { name: passkey.name })}">${t('passkeys.delete')}</summary>
      <div class="confirm-box" role="group">
        <p>${t('passkeys.delete_confirm', { name: passkey.name })}</p>
        <form method="post" action="${action}" class="inline">${csrfField(context.csrfToken)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="button danger small">${t('passkeys.delete_yes')}</button></form>
      </div></details>`;
    return html`<tr>${cell(label.name, passkey.name, 'wrap')}${cell(label.created, when(passkey.created_at, 'local'))}${cell(label.lastUsed, when(passkey.last_used_at, 'relative'))}${cell(label.action, html`<div class="row-buttons">${rename}${remove}</div>`)}</tr>`;
  };
  return html`<div class="table-wrap"><table class="data passkeys">
  <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${passkeys.map(row)}</tbody>
</table></div>`;
}

/** A name to change, in a disclosure; open, with its error, after it failed (then the field has focus). */
function renameForm(context: AccountPageContext, passkey: PasskeySummary): Html {
  const { t } = context;
  const failed = context.failed?.section === renameSection(passkey.id) ? context.failed.state : null;
  const error = failed?.errors?.['name']?.[0];
  const old = failed?.old?.['name'];
  const id = `passkey-name-${passkey.id}`;
  return html`<details class="passkey-rename"${failed ? html` open` : ''}><summary class="button secondary small" aria-label="${t('passkeys.rename_of', { name: passkey.name })}">${t('passkeys.rename')}</summary>
      <form method="post" action="/user/passkeys/${passkey.id}" novalidate class="field${error ? ' has-error' : ''}">
        ${csrfField(context.csrfToken)}
        <input type="hidden" name="_method" value="PUT">
        <label for="${id}">${t('passkeys.new_name_of', { name: passkey.name })}</label>
        <input id="${id}" name="name" type="text" value="${typeof old === 'string' ? old : passkey.name}" required autocomplete="off"${error ? html` aria-invalid="true" aria-describedby="${id}-error" autofocus` : ''}>
        ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
        <button type="submit" class="button secondary small">${t('passkeys.save_name')}</button>
      </form></details>`;
}
