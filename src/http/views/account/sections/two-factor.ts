import { html } from '../../../../lib/html.ts';
import { type AccountSection, sectionCard } from '../page.ts';

/**
 * Whether two-factor is on, how many recovery codes are left, and the way to /user/two-factor (set
 * up or manage there, behind a password confirmation: this page shows no secret).
 */
export const twoFactorSection: AccountSection = {
  id: 'two-factor',
  async render(context) {
    const { t, user } = context;
    const state = await context.services.auth.twoFactor.state(user.id);
    const summary =
      state.status === 'on'
        ? html`<p><span class="badge ok">${t('two_factor.badge_on')}</span> ${t('two_factor.codes_left', { count: state.recoveryCodesLeft })}</p>`
        : state.status === 'enrolling'
          ? html`<p><span class="badge warn">${t('two_factor.badge_enrolling')}</span> ${t('two_factor.enrolling_lead')}</p>`
          : html`<p><span class="badge">${t('two_factor.badge_off')}</span> ${t('two_factor.off_lead')}</p>`;
    const action = state.status === 'off' ? t('two_factor.set_up') : t('two_factor.manage');
    return sectionCard(
      this.id,
      t('account.section.two-factor'),
      t('two_factor.lead'),
      html`${summary}
  <p><a class="button secondary" href="/user/two-factor">${action}</a></p>`,
    );
  },
};
