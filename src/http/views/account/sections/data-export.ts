import { html } from '../../../../lib/html.ts';
import { type AccountSection, sectionCard } from '../page.ts';

/**
 * "Your data": a plain link to GET /user/export, whose Content-Disposition makes it a download. It
 * needs a recent password confirmation; without one the link leads through the confirmation form and
 * the download starts from there (no `download` attribute: that would save the form as the file).
 */
export const dataExportSection: AccountSection = {
  id: 'export',
  render(context) {
    const { t } = context;
    const confirmed = context.browser.passwordConfirmed;
    return sectionCard(
      this.id,
      t('account.section.export'),
      t('account.export_lead'),
      html`<div class="actions"><a class="button secondary" href="/user/export">${t('account.export_button')}</a></div>
  ${confirmed ? '' : html`<p class="muted small">${t('account.export_confirm_hint')}</p>`}`,
    );
  },
};
