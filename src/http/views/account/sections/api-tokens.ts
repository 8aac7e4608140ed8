import type { FastifyRequest } from 'fastify';
import type { AccessToken } from '../../../../auth/access-tokens.ts';
import { type Html, html } from '../../../../lib/html.ts';
import { formatDateTime } from '../../format.ts';
import { cell } from '../../table.ts';
import { type AccountSection, sectionCard } from '../page.ts';

/** The user's API tokens: names, abilities and dates, never a secret. */
export const apiTokensSection: AccountSection = {
  id: 'api-tokens',
  async render(context) {
    const { request, user } = context;
    const t = request.t;
    const tokens = await request.server.services.auth.tokens.list(user.id);
    return sectionCard(
      this.id,
      t('account.section.api-tokens'),
      t('pages.api_tokens_lead'),
      tokens.length === 0 ? html`<p class="empty">${t('pages.no_tokens')}</p>` : tokenTable(request, tokens),
    );
  },
};

function tokenTable(request: FastifyRequest, tokens: readonly AccessToken[]): Html {
  const t = request.t;
  const when = (ms: number | null) => (ms === null ? t('pages.never') : formatDateTime(request.locale, ms));
  const label = {
    name: t('pages.token_name'),
    abilities: t('pages.token_abilities'),
    lastUsed: t('pages.token_last_used'),
    expires: t('pages.token_expires'),
    created: t('pages.token_created'),
  };
  return html`<div class="table-wrap"><table class="data">
  <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${tokens.map(
    (token) =>
      html`<tr>${cell(label.name, token.name, 'wrap')}${cell(label.abilities, html`${token.abilities.map((a) => html`<code>${a}</code> `)}`)}${cell(label.lastUsed, when(token.lastUsedAt))}${cell(label.expires, when(token.expiresAt))}${cell(label.created, when(token.createdAt))}</tr>`,
  )}</tbody>
</table></div>`;
}
