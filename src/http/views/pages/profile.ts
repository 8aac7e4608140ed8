import type { FastifyRequest } from 'fastify';
import type { AccessToken } from '../../../auth/access-tokens.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { breakableEmail, formatDateTime } from '../format.ts';
import { statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';
import { cell } from '../table.ts';

export interface ProfileView {
  readonly user: User;
  readonly tokens: readonly AccessToken[];
  readonly csrfToken: string;
  readonly status?: unknown;
}

/** The signed-in, verified user's details and their API tokens (names and dates only, never secrets). */
export function profilePage(request: FastifyRequest, view: ProfileView): Html {
  const t = request.t;
  const { user } = view;
  const when = (ms: number | null) => (ms === null ? t('pages.never') : formatDateTime(request.locale, ms));
  return layout(request, {
    title: t('pages.profile'),
    account: { name: user.name, csrfToken: view.csrfToken },
    body: html`<div class="page">
  ${statusMessage(view.status)}
  <header class="page-header">
    <h1>${t('pages.profile')}</h1>
    <p class="lead">${t('pages.profile_lead')}</p>
  </header>
  <section class="card">
    <h2>${t('pages.profile_information')}</h2>
    <dl class="facts">
      <div><dt>${t('pages.name')}</dt><dd>${user.name}</dd></div>
      <div><dt>${t('pages.email')}</dt><dd>${breakableEmail(user.email)}</dd></div>
      <div><dt>${t('pages.email_verified_at')}</dt><dd>${when(user.emailVerifiedAt)}</dd></div>
      <div><dt>${t('pages.member_since')}</dt><dd>${when(user.createdAt)}</dd></div>
    </dl>
  </section>
  <section class="card">
    <h2>${t('pages.api_tokens')}</h2>
    <p class="muted">${t('pages.api_tokens_lead')}</p>
    ${view.tokens.length === 0 ? html`<p class="empty">${t('pages.no_tokens')}</p>` : tokenTable(request, view.tokens, when)}
  </section>
</div>`,
  });
}

function tokenTable(
  request: FastifyRequest,
  tokens: readonly AccessToken[],
  when: (ms: number | null) => string,
): Html {
  const t = request.t;
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
