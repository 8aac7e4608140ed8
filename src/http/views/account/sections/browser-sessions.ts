import { html } from '../../../../lib/html.ts';
import { formatDateTime } from '../../format.ts';
import { csrfField, input } from '../../forms.ts';
import { cell } from '../../table.ts';
import { type AccountSection, sectionCard, sectionState } from '../page.ts';

/** Where the account is signed in (remembered browsers included), ending one or all others. */
export const browserSessionsSection: AccountSection = {
  id: 'browser-sessions',
  async render(context) {
    const { t, user } = context;
    const sessions = await context.services.account.browserSessions(user.id, context.browser.current);
    const label = {
      device: t('account.device'),
      ip: t('account.ip_address'),
      active: t('account.last_active'),
      action: t('account.action'),
    };
    const unknown = t('account.unknown_device');
    const rows = sessions.map((s) => {
      const device = [s.browser, s.platform].filter(Boolean).join(' · ') || unknown;
      const flags = html`${s.isCurrent ? html` <span class="badge ok">${t('account.this_browser')}</span>` : ''}${s.remembered ? html` <span class="badge">${t('account.remembered')}</span>` : ''}`;
      const end = s.isCurrent
        ? html`<span class="muted">—</span>`
        : html`<form method="post" action="/user/sessions/${s.id}" class="inline">${csrfField(context.csrfToken)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="button secondary small" aria-label="${t('account.end_session_of', { device })}">${t('account.end_session')}</button></form>`;
      return html`<tr>${cell(label.device, html`${device}${flags}`, 'wrap')}${cell(label.ip, s.ipAddress ?? '—')}${cell(label.active, formatDateTime(context.locale, s.lastActiveAt))}${cell(label.action, end)}</tr>`;
    });
    const state = sectionState(context, this.id);
    return sectionCard(
      this.id,
      t('account.section.browser-sessions'),
      t('account.sessions_lead'),
      html`<div class="table-wrap"><table class="data">
  <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${rows}</tbody>
</table></div>
  <form method="post" action="/user/other-browser-sessions" novalidate>
    ${csrfField(context.csrfToken)}
    <input type="hidden" name="_method" value="DELETE">
    ${input(t, state, { name: 'password', id: 'field-other-sessions-password', type: 'password', label: t('pages.password'), autocomplete: 'current-password', required: true, hint: t('account.other_sessions_hint') })}
    <div class="actions"><button type="submit" class="button secondary">${t('account.end_other_sessions')}</button></div>
  </form>`,
    );
  },
};
