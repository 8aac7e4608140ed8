import { html } from '../../../../lib/html.ts';
import { csrfField, input } from '../../forms.ts';
import { type AccountSection, sectionCard, sectionState } from '../page.ts';

/** Name and e-mail (PUT /user/profile-information): a new address waits for its link (email-change.ts). */
export const profileInformationSection: AccountSection = {
  id: 'profile-information',
  render(context) {
    const { t } = context;
    const state = sectionState(context, this.id);
    const old = { name: context.user.name, email: context.user.email, ...state.old };
    return sectionCard(
      this.id,
      t('account.section.profile-information'),
      t('account.profile_lead'),
      html`<form method="post" action="/user/profile-information" novalidate>
    ${csrfField(context.csrfToken)}
    <input type="hidden" name="_method" value="PUT">
    ${input(t, { ...state, old }, { name: 'name', label: t('pages.name'), autocomplete: 'name', required: true })}
    ${input(t, { ...state, old }, { name: 'email', type: 'email', label: t('pages.email'), autocomplete: 'email', required: true, hint: t('account.email_hint') })}
    <div class="actions"><button type="submit" class="button">${t('account.save')}</button></div>
  </form>`,
    );
  },
};
