import type { SignInMethods } from '../../../account/sign-in-methods.ts';
import type { Translate } from '../../../i18n/i18n.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { breakableEmail, formatDate } from '../format.ts';
import { statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

/** What the dashboard shows: a small view context, not the request. */
export interface DashboardView {
  readonly t: Translate;
  readonly locale: string;
  readonly user: User;
  readonly csrfToken: string;
  readonly status: unknown;
  readonly methods: SignInMethods;
}

export function dashboardPage(viewContext: ViewContext, view: DashboardView): Html {
  const { t, user } = view;
  const verified = user.emailVerifiedAt !== null;
  return layout(viewContext, {
    title: t('pages.dashboard'),
    account: { name: user.name, csrfToken: view.csrfToken },
    body: html`<div class="page">
  ${statusMessage(view.status)}
  <header class="page-header">
    <h1>${t('pages.dashboard')}</h1>
    <p class="lead">${t('pages.welcome', { name: user.name })}</p>
  </header>
  ${verified ? '' : html`<div class="notice" role="note"><p>${t('pages.unverified_sent', { email: user.email })}</p><a class="button small" href="/email/verify">${t('pages.verify_email')}</a></div>`}
  <div class="grid">
    <section class="card">
      <h2>${t('pages.your_account')}</h2>
      <dl class="facts">
        <div><dt>${t('pages.name')}</dt><dd>${user.name}</dd></div>
        <div><dt>${t('pages.email')}</dt><dd><span>${breakableEmail(user.email)}</span> ${verified ? html`<span class="badge ok">${t('pages.verified_badge')}</span>` : html`<span class="badge warn">${t('pages.unverified_badge')}</span>`}</dd></div>
        <div><dt>${t('pages.member_since')}</dt><dd>${formatDate(view.locale, user.createdAt)}</dd></div>
      </dl>
      <p><a href="/profile">${t('pages.view_profile')}</a></p>
    </section>
    ${securityCard(view, verified)}
  </div>
</div>`,
  });
}

/**
 * Whether two-factor and passkeys are on, and — while neither protects the account — a nudge to the one
 * step that would (only for a verified address: both need one, docs/security.md).
 */
function securityCard(view: DashboardView, verified: boolean): Html {
  const { t, methods } = view;
  const twoFactorOn = methods.twoFactor === 'on';
  const twoFactor =
    methods.twoFactor === 'on'
      ? html`<span class="badge ok">${t('two_factor.badge_on')}</span>`
      : methods.twoFactor === 'enrolling'
        ? html`<span class="badge warn">${t('two_factor.badge_enrolling')}</span>`
        : html`<span class="badge warn">${t('two_factor.badge_off')}</span>`;
  const passkeys =
    methods.passkeys > 0
      ? html`<span class="badge ok">${t('pages.passkeys_count', { count: methods.passkeys })}</span>`
      : html`<span class="badge">${t('pages.passkeys_none')}</span>`;
  const protectedBySecond = twoFactorOn || methods.passkeys > 0;
  const nudge = !verified
    ? ''
    : protectedBySecond
      ? html`<p class="security-ok">${t(twoFactorOn ? 'pages.security_ok_two_factor' : 'pages.security_ok_passkeys')}</p>`
      : html`<div class="nudge">
      <p>${t('pages.security_nudge')}</p>
      <p class="row-buttons"><a class="button small" href="/user/two-factor">${t('pages.set_up_two_factor')}</a> <a class="button secondary small" href="/profile/security#passkeys">${t('pages.add_passkey')}</a></p>
    </div>`;
  return html`<section class="card">
      <h2>${t('pages.security')}</h2>
      <dl class="facts">
        <div><dt>${t('account.section.two-factor')}</dt><dd>${twoFactor}</dd></div>
        <div><dt>${t('account.section.passkeys')}</dt><dd>${passkeys}</dd></div>
      </dl>
      ${nudge}
      <p><a href="/profile/security">${t('pages.security_settings')}</a></p>
    </section>`;
}
