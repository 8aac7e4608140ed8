import type { IdentitySummary } from '../../../../identities/identities.repository.ts';
import { type Html, html } from '../../../../lib/html.ts';
import { formatDateTime } from '../../format.ts';
import { csrfField } from '../../forms.ts';
import { cell } from '../../table.ts';
import { type AccountPageContext, type AccountSection, sectionCard } from '../page.ts';

/**
 * Linked accounts (docs/guides/login-providers.md): each identity of another provider linked to the
 * account, with the address the provider gave; Unlink (a plain form with `_method`), offered only
 * while the account keeps another way to sign in (a password, a passkey, another link — the route
 * refuses otherwise too); Link for each provider not linked yet (/auth/{provider}?link=1, which asks
 * for the password confirmation when there is a password). An account without a password is told how
 * to set one: the reset flow, whose link goes to its own address. Shown when a provider is configured
 * or an identity is linked.
 */
export const linkedAccountsSection: AccountSection = {
  id: 'linked-accounts',
  async render(context) {
    const { t, user, services } = context;
    const { identities } = services;
    const linked = await identities.list(user.id);
    const configured = identities.providers.all;
    if (configured.length === 0 && linked.length === 0) return html``;
    const [hasPassword, passkeys] = await Promise.all([
      identities.hasPassword(user.id),
      services.passkeys.list(user.id),
    ]);
    // Unlinking one identity leaves another way in unless it is the only one of all.
    const lastWayIn = !hasPassword && passkeys.length === 0 && linked.length === 1;
    const linkable = identities.providers.available.filter(
      (provider) => !linked.some((identity) => identity.provider === provider.name),
    );
    return sectionCard(
      this.id,
      t('account.section.linked-accounts'),
      t('identities.section_lead'),
      html`${linked.length === 0 ? html`<p class="empty">${t('identities.none')}</p>` : identityTable(context, linked, lastWayIn)}
  ${lastWayIn ? html`<div class="notice" role="note"><p>${t('identities.only_way_in')}</p></div>` : ''}
  ${linkable.length === 0 ? '' : html`<ul class="provider-list link-providers">${linkable.map((provider) => html`<li><a class="button secondary" href="/auth/${provider.name}?link=1">${t('identities.link', { provider: provider.label })}</a></li>`)}</ul>`}
  ${hasPassword ? '' : setPassword(context)}`,
    );
  },
};

function identityTable(
  context: AccountPageContext,
  linked: readonly IdentitySummary[],
  lastWayIn: boolean,
): Html {
  const { t, services } = context;
  const when = (ms: number | null) =>
    ms === null ? t('identities.never_used') : formatDateTime(context.locale, ms);
  const label = {
    provider: t('identities.provider'),
    email: t('identities.email'),
    linked: t('identities.linked_at'),
    lastUsed: t('identities.last_used'),
    action: t('identities.action'),
  };
  const row = (identity: IdentitySummary) => {
    const provider = services.identities.labelOf(identity.provider);
    const email =
      identity.email === null
        ? '—'
        : html`${identity.email}${identity.emailVerified ? '' : html` <span class="muted">(${t('identities.unverified', { provider })})</span>`}`;
    const unlink = lastWayIn
      ? html`<span class="muted">—</span>`
      : html`<details class="confirm"><summary class="button danger-outline small" aria-label="${t('identities.unlink_of', { provider })}">${t('identities.unlink')}</summary>
      <div class="confirm-box" role="group">
        <p>${t('identities.unlink_confirm', { provider })}</p>
        <form method="post" action="/user/linked-accounts/${identity.id}" class="inline">${csrfField(context.csrfToken)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="button danger small">${t('identities.unlink_yes', { provider })}</button></form>
      </div></details>`;
    return html`<tr>${cell(label.provider, provider)}${cell(label.email, email, 'wrap')}${cell(label.linked, when(identity.createdAt))}${cell(label.lastUsed, when(identity.lastUsedAt))}${cell(label.action, unlink)}</tr>`;
  };
  return html`<div class="table-wrap"><table class="data linked-accounts">
  <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${linked.map(row)}</tbody>
</table></div>`;
}

/** No password yet: the reset flow sets one (its link goes to the account's own address). */
function setPassword(context: AccountPageContext): Html {
  const { t, user } = context;
  return html`<form method="post" action="/forgot-password" class="notice set-password">
    <p>${t('identities.no_password', { email: user.email })}</p>
    ${csrfField(context.csrfToken)}
    <input type="hidden" name="email" value="${user.email}">
    <button type="submit" class="button small">${t('identities.send_reset_link')}</button>
  </form>`;
}
