import type { AccessToken } from '../../../../auth/tokens/access-tokens.ts';
import { type Html, html } from '../../../../lib/html.ts';
import { timeTag } from '../../format.ts';
import { csrfField, type FormState, input } from '../../forms.ts';
import { cell } from '../../table.ts';
import { type AccountPageContext, type AccountSection, sectionCard, sectionState } from '../page.ts';

/** The flash key carrying a new token's plaintext to the one page view that shows it. */
export const NEW_TOKEN_FLASH = 'new_token';

const EXPIRY_DAYS = [7, 30, 90, 365] as const;
const DAY_SECONDS = 24 * 3600;

/** API tokens: create (abilities from TOKEN_ABILITIES, optional expiry), the plaintext once, edit, revoke. */
export const apiTokensSection: AccountSection = {
  id: 'api-tokens',
  async render(context) {
    const { t, user } = context;
    const { account, auth } = context.services;
    const tokens = await auth.tokens.list(user.id);
    const state = sectionState(context, this.id);
    const plain = context.flashed(NEW_TOKEN_FLASH);
    return sectionCard(
      this.id,
      t('account.section.api-tokens'),
      t('account.tokens_lead'),
      html`${typeof plain === 'string' ? newToken(context, plain) : ''}
  <form method="post" action="/user/api-tokens" novalidate class="token-create">
    ${csrfField(context.csrfToken)}
    ${input(t, state, { name: 'name', id: 'field-token-name', label: t('account.token_name_label'), required: true, autocomplete: 'off' })}
    ${abilityChoices(context, account.tokenCatalogue, picked(state, account.tokenCatalogue), 'new', state)}
    ${expirySelect(context, state)}
    <div class="actions"><button type="submit" class="button">${t('account.create_token')}</button></div>
  </form>
  ${tokens.length === 0 ? html`<p class="empty">${t('pages.no_tokens')}</p>` : tokenTable(context, tokens, account.tokenCatalogue)}`,
    );
  },
};

/**
 * What a form had ticked when it failed, else `initial` (the create form: nothing, least privilege by
 * default; an edit form: the token's abilities).
 */
function picked(
  state: FormState,
  catalogue: readonly string[],
  initial: readonly string[] = [],
): readonly string[] {
  if (state.old === undefined) return initial;
  const old = state.old['abilities'];
  const list = typeof old === 'string' ? [old] : Array.isArray(old) ? old : [];
  return catalogue.filter((a) => list.includes(a));
}

function newToken(context: AccountPageContext, plain: string): Html {
  const { t } = context;
  return html`<div class="status new-token" role="status">
    <p>${t('account.token_plaintext')}</p>
    <ul class="token-secret" id="new-token"><li><code>${plain}</code></li></ul>
    <button type="button" class="button secondary small" data-copy="new-token" data-copied="${t('account.copied')}" hidden>${t('account.copy')}</button>
  </div>`;
}

/** The key of one token's abilities form among the account area's forms (its errors, its input). */
export function editAbilitiesForm(tokenId: number): string {
  return `api-tokens/edit-${tokenId}`;
}

function abilityChoices(
  context: AccountPageContext,
  catalogue: readonly string[],
  checked: readonly string[],
  idPrefix: string,
  state: FormState,
  legend = context.t('account.token_abilities_legend'),
): Html {
  const error = state.errors?.['abilities']?.[0];
  const errorId = `abilities-${idPrefix}-error`;
  return html`<fieldset class="abilities${error ? ' has-error' : ''}"${error ? html` aria-describedby="${errorId}"` : ''}>
    <legend>${legend}</legend>
    <div class="ability-list">${catalogue.map(
      (ability) =>
        html`<label class="checkbox"><input type="checkbox" name="abilities" value="${ability}" id="ability-${idPrefix}-${ability}"${checked.includes(ability) ? html` checked` : ''}> <code>${ability}</code></label>`,
    )}</div>
    <p class="hint">${context.t('account.token_abilities_hint')}</p>
    ${error ? html`<p class="error" id="${errorId}">${error}</p>` : ''}
  </fieldset>`;
}

function expirySelect(context: AccountPageContext, state: FormState): Html {
  const { t } = context;
  const old = String(state.old?.['expires_in'] ?? '');
  const option = (value: string, label: string) =>
    html`<option value="${value}"${old === value ? html` selected` : ''}>${label}</option>`;
  // No date of its own still ends with the server's lifetime (TOKEN_EXPIRATION): said under the field.
  const minutes = context.services.auth.tokens.settings.expirationMinutes;
  const days = minutes === null ? null : Math.round(minutes / (24 * 60));
  return html`<div class="field">
    <label for="field-token-expires_in">${t('account.token_expiry')}</label>
    <select id="field-token-expires_in" name="expires_in"${days === null ? '' : html` aria-describedby="field-token-expires_in-hint"`}>
      ${option('', t(days === null ? 'account.expiry_never' : 'account.expiry_none'))}
      ${EXPIRY_DAYS.map((count) => option(String(count * DAY_SECONDS), t('account.expiry_days', { count })))}
    </select>
    ${days === null ? '' : html`<p class="hint" id="field-token-expires_in-hint">${t('account.expiry_server', { count: days })}</p>`}
  </div>`;
}

function tokenTable(
  context: AccountPageContext,
  tokens: readonly AccessToken[],
  catalogue: readonly string[],
): Html {
  const { t } = context;
  const when = (ms: number | null, mode: 'relative' | 'local') =>
    ms === null ? t('pages.never') : timeTag(context.locale, ms, mode);
  const label = {
    name: t('pages.token_name'),
    abilities: t('pages.token_abilities'),
    lastUsed: t('pages.token_last_used'),
    expires: t('pages.token_expires'),
    action: t('account.action'),
  };
  const row = (token: AccessToken) => {
    const state = sectionState(context, editAbilitiesForm(token.id));
    // The summary names what it opens: the abilities, then "Change" (for a screen reader: "Change the
    // abilities of <name>"), so a list of these toggles is not a list of bare ability names.
    const edit = html`<details class="token-edit"${state.errors ? html` open` : ''}><summary>${token.abilities.length === 0 ? '—' : token.abilities.map((a) => html`<code>${a}</code> `)}<span class="summary-action">${t('account.change')}<span class="visually-hidden"> ${t('account.abilities_of', { name: token.name })}</span></span></summary>
      <form method="post" action="/user/api-tokens/${token.id}">
        ${csrfField(context.csrfToken)}
        <input type="hidden" name="_method" value="PUT">
        ${abilityChoices(context, catalogue, picked(state, catalogue, token.abilities), String(token.id), state, t('account.edit_abilities_of', { name: token.name }))}
        <button type="submit" class="button secondary small">${t('account.save_abilities')}</button>
      </form></details>`;
    // Revoking asks first (a disclosure, no script needed): scripts using the token stop at once.
    const revoke = html`<details class="confirm"><summary class="button danger-outline small" aria-label="${t('account.revoke_token_of', { name: token.name })}">${t('account.revoke')}</summary>
      <div class="confirm-box" role="group">
        <p>${t('account.revoke_confirm', { name: token.name })}</p>
        <form method="post" action="/user/api-tokens/${token.id}" class="inline">${csrfField(context.csrfToken)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="button danger small">${t('account.revoke_yes')}</button></form>
      </div></details>`;
    return html`<tr>${cell(label.name, token.name, 'wrap')}${cell(label.abilities, edit)}${cell(label.lastUsed, when(token.lastUsedAt, 'relative'))}${cell(label.expires, when(token.expiresAt, 'local'))}${cell(label.action, revoke)}</tr>`;
  };
  return html`<div class="table-wrap"><table class="data">
  <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${tokens.map(row)}</tbody>
</table></div>`;
}
