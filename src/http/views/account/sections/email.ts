import { html } from '../../../../lib/html.ts';
import { breakableEmail, timeTag } from '../../format.ts';
import { csrfField } from '../../forms.ts';
import { type AccountSection, sectionCard } from '../page.ts';

/** The address, whether it is verified, and a pending change with its cancel button. */
export const emailSection: AccountSection = {
  id: 'email',
  async render(context) {
    const { t, user } = context;
    const pending = await context.services.account.pendingEmail(user.id);
    const verified =
      user.emailVerifiedAt === null
        ? html`<span class="badge warn">${t('pages.unverified_badge')}</span>`
        : html`<span class="badge ok">${t('pages.verified_badge')}</span> <span class="muted small">${timeTag(context.locale, user.emailVerifiedAt, 'local')}</span>`;
    return sectionCard(
      this.id,
      t('account.section.email'),
      t('account.email_lead'),
      html`<dl class="facts">
    <div><dt>${t('account.current_email')}</dt><dd>${breakableEmail(user.email)} ${verified}</dd></div>
  </dl>
  ${
    pending === null
      ? ''
      : html`<div class="notice" role="note">
    <p>${t('account.pending_email', { email: pending })}</p>
    <form method="post" action="/user/pending-email" class="inline">
      ${csrfField(context.csrfToken)}
      <input type="hidden" name="_method" value="DELETE">
      <button type="submit" class="button secondary small">${t('account.cancel_email_change')}</button>
    </form>
  </div>`
  }`,
    );
  },
};
