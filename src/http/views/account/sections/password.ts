import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../../auth/passwords/password-policy.ts';
import { html } from '../../../../lib/html.ts';
import { csrfField, input, passwordRules } from '../../forms.ts';
import { type AccountSection, sectionCard, sectionState } from '../page.ts';

/** PUT /user/password: ends every other browser (and every remembered one). */
export const passwordSection: AccountSection = {
  id: 'password',
  render(context) {
    const { t } = context;
    const state = sectionState(context, this.id);
    return sectionCard(
      this.id,
      t('account.section.password'),
      t('account.password_lead'),
      html`<form method="post" action="/user/password" novalidate>
    ${csrfField(context.csrfToken)}
    <input type="hidden" name="_method" value="PUT">
    ${input(t, state, { name: 'current_password', type: 'password', label: t('account.current_password'), autocomplete: 'current-password', required: true })}
    ${input(t, state, { name: 'password', type: 'password', label: t('account.new_password'), autocomplete: 'new-password', required: true, details: passwordRules(t, PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH) })}
    ${input(t, state, { name: 'password_confirmation', type: 'password', label: t('pages.confirm_password'), autocomplete: 'new-password', required: true })}
    <div class="actions"><button type="submit" class="button">${t('account.change_password')}</button></div>
  </form>`,
    );
  },
};
