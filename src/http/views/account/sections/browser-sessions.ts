import type { BrowserSession } from '../../../../account/browser-sessions.ts';
import { html } from '../../../../lib/html.ts';
import { formatDateTime, timeTag } from '../../format.ts';
import { csrfField, input } from '../../forms.ts';
import { cell } from '../../table.ts';
import { type AccountPageContext, type AccountSection, sectionCard, sectionState } from '../page.ts';

/**
 * Where the account is signed in (remembered browsers included): since when, last active (in the
 * reader's time zone, as "5 minutes ago", once the page's script runs), and a sign-out button each —
 * or all others at once, after the password.
 */
export const browserSessionsSection: AccountSection = {
  id: 'browser-sessions',
  async render(context) {
    const { t, user, locale } = context;
    const sessions = await context.services.account.browserSessions(user.id, context.browser.current);
    const label = {
      device: t('account.device'),
      ip: t('account.ip_address'),
      signedIn: t('account.signed_in'),
      active: t('account.last_active'),
      action: t('account.action'),
    };
    const names = signOutNames(context, sessions);
    const rows = sessions.map((s, i) => {
      const flags = html`${s.isCurrent ? html` <span class="badge ok">${t('account.this_browser')}</span>` : ''}${s.remembered ? html` <span class="badge">${t('account.remembered')}</span>` : ''}`;
      const end = s.isCurrent
        ? html`<span class="muted">—</span>`
        : html`<form method="post" action="/user/sessions/${s.id}" class="inline">${csrfField(context.csrfToken)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="button secondary small" aria-label="${names[i]}">${t('account.end_session')}</button></form>`;
      return html`<tr>${cell(label.device, html`${deviceOf(context, s)}${flags}`, 'wrap')}${cell(label.ip, s.ipAddress ?? '—')}${cell(label.signedIn, timeTag(locale, s.signedInAt))}${cell(label.active, timeTag(locale, s.lastActiveAt))}${cell(label.action, end)}</tr>`;
    });
    const state = sectionState(context, this.id);
    // Nothing else to sign out: no form for it (unless it just failed and shows its error).
    const others = sessions.some((s) => !s.isCurrent) || state.errors !== undefined;
    return sectionCard(
      this.id,
      t('account.section.browser-sessions'),
      t('account.sessions_lead'),
      html`<div class="table-wrap"><table class="data">
  <thead><tr>${Object.values(label).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${rows}</tbody>
</table></div>
  ${
    others
      ? html`<form method="post" action="/user/other-browser-sessions" novalidate class="sessions-end-others">
    <h3>${t('account.end_other_sessions')}</h3>
    ${csrfField(context.csrfToken)}
    <input type="hidden" name="_method" value="DELETE">
    ${input(t, state, { name: 'password', id: 'field-other-sessions-password', type: 'password', label: t('pages.password'), autocomplete: 'current-password', required: true, hint: t('account.other_sessions_hint') })}
    <div class="actions"><button type="submit" class="button secondary">${t('account.end_other_sessions')}</button></div>
  </form>`
      : html`<p class="muted">${t('account.no_other_sessions')}</p>`
  }`,
    );
  },
};

function deviceOf(context: AccountPageContext, session: BrowserSession): string {
  return (
    [session.browser, session.platform].filter(Boolean).join(' · ') || context.t('account.unknown_device')
  );
}

/**
 * The sign-out buttons' accessible names, one per row and all different: "Sign out Firefox 128 · Linux",
 * and where two rows share a device, its address and sign-in time too (a screen reader's list of
 * buttons shows names only, so "Sign out" eight times tells nothing apart).
 */
function signOutNames(context: AccountPageContext, sessions: readonly BrowserSession[]): string[] {
  const { t, locale } = context;
  const devices = sessions.map((s) => deviceOf(context, s));
  const names = sessions.map((s, i) => {
    const device = devices[i]!;
    if (devices.filter((d) => d === device).length === 1) return t('account.end_session_of', { device });
    return t('account.end_session_of_at', {
      device,
      ip: s.ipAddress ?? t('account.unknown_address'),
      when: formatDateTime(locale, s.signedInAt),
    });
  });
  // Same device, address and minute: numbered, so that no two are ever alike.
  return names.map((name, i) => {
    const same = names.filter((other) => other === name).length;
    return same === 1 ? name : `${name} (${names.slice(0, i + 1).filter((other) => other === name).length})`;
  });
}
