import type { AccessToken } from '../../../../auth/tokens/access-tokens.ts';
import { type Html, html } from '../../../../lib/html.ts';
import { formatDateTime } from '../../format.ts';
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
    ${abilityChoices(context, account.tokenCatalogue, picked(state, account.tokenCatalogue), 'new')}
    ${expirySelect(context, state)}
    <div class="actions"><button type="submit" class="button">${t('account.create_token')}</button></div>
  </form>
  ${tokens.length === 0 ? html`<p class="empty">${t('pages.no_tokens')}</p>` : tokenTable(context, tokens, account.tokenCatalogue)}`,
    );
  },
};

/** What the create form had ticked when it failed (nothing on first view: least privilege by default). */
function picked(state: FormState, catalogue: readonly string[]): readonly string[] {
  const old = state.old?.['abilities'];
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

function abilityChoices(
  context: AccountPageContext,
  catalogue: readonly string[],
  checked: readonly string[],
  idPrefix: string,
  legend = context.t('account.token_abilities_legend'),
): Html {
  const error = context.failed?.state.errors?.['abilities']?.[0];
  return html`<fieldset class="field abilities${error ? ' has-error' : ''}">
    <legend>${legend}</legend>
    ${catalogue.map(
      (ability) =>
        html`<label class="checkbox"><input type="checkbox" name="abilities" value="${ability}" id="ability-${idPrefix}-${ability}"${checked.includes(ability) ? html` checked` : ''}> <code>${ability}</code></label>`,
    )}
    ${error ? html`<p class="error">${error}</p>` : ''}
  </fieldset>`;
}

function expirySelect(context: AccountPageContext, state: FormState): Html {
  const { t } = context;
  const old = String(state.old?.['expires_in'] ?? '');
  const option = (value: string, label: string) =>
    html`<option value="${value}"${old === value ? html` selected` : ''}>${label}</option>`;
  return html`<div class="field">
    <label for="field-token-expires_in">${t('account.token_expiry')}</label>
    <select id="field-token-expires_in" name="expires_in">
      ${option('', t('account.expiry_never'))}
      ${EXPIRY_DAYS.map((days) => option(String(days * DAY_SECONDS), t('account.expiry_days', { count: days })))}
    </select>
  </div>`;
}

function tokenTable(
  context: AccountPageContext,
  tokens: readonly AccessToken[],
  catalogue: readonly string[],
): Html {
  const { t } = context;
  const when = (ms: number | null) => (ms === null ? t('pages.never') : formatDateTime(context.locale, ms));
  const label = {
    name: t('pages.token_name'),
    abilities: t('pages.token_abilities'),
    lastUsed: t('pages.token_last_used'),
    expires: t('pages.token_expires'),
    action: t('account.action'),
  };
  const row = (token: AccessToken) => {
    const edit = html`<details class="token-edit"><summary>${token.abilities.length === 0 ? '—' : token.abilities.map((a) => html`<code>${a}</code> `)}</summary>
      <form method="post" action="/user/api-tokens/${token.id}">
        ${csrfField(context.csrfToken)}
        <input type="hidden" name="_method" value="PUT">
        ${abilityChoices(context, catalogue, token.abilities, String(token.id), t('account.edit_abilities_of', { name: token.name }))}
        <button type="submit" class="button secondary small">${t('account.save_abilities')}</button>
      </form></details>`;
    const revoke = html`<form method="post" action="/user/api-tokens/${token.id}" class="inline">${csrfField(context.csrfToken)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="button secondary small" aria-label="${t('account.revoke_token_of', { name: token.name })}">${t('account.revoke')}</button></form>`;
    return html`<tr>${cell(label.name, token.name, 'wrap')}${cell(label.abilities, edit)}${cell(label.lastUsed, when(token.lastUsedAt))}${cell(label.expires, when(token.expiresAt))}${cell(label.action, revoke)}</tr>`;
  };
  return html`<div class="table-wrap"><table class="data">
  <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${tokens.map(row)}</tbody>
</table></div>`;
}
