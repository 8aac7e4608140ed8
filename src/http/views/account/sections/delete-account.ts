import { html } from '../../../../lib/html.ts';
import { csrfField, input } from '../../forms.ts';
import { type AccountSection, sectionCard, sectionState } from '../page.ts';

/** The key of a refusal that is about the account, not a field (the owner, the last admin). */
export const ACCOUNT_ERROR = 'account';

/**
 * DELETE /user as a form (`_method=DELETE`, no script needed): a warning saying what goes and that it
 * cannot be undone, and the password. The owner and the last panel admin are told why they cannot,
 * instead of being offered a form that would refuse them.
 */
export const deleteAccountSection: AccountSection = {
  id: 'delete-account',
  async render(context) {
    const { t, user } = context;
    const state = sectionState(context, this.id);
    const refusal = await context.services.account.deletionRefusal(user.id);
    const title = t('account.section.delete-account');
    if (refusal !== null) {
      const reason = t(refusal === 'owner' ? 'account.owner_account' : 'account.last_admin');
      return sectionCard(
        this.id,
        title,
        t('account.delete_lead'),
        html`<div class="notice" role="note"><p>${reason}</p></div>`,
        'danger-zone',
      );
    }
    const refused = state.errors?.[ACCOUNT_ERROR]?.[0];
    return sectionCard(
      this.id,
      title,
      t('account.delete_lead'),
      html`${refused ? html`<div class="notice" role="alert"><p>${refused}</p></div>` : ''}
  <div class="warning" id="delete-account-warning">
    <p><strong>${t('account.delete_confirm_hint')}</strong> ${t('account.delete_what', { email: user.email })}</p>
  </div>
  <form method="post" action="/user" novalidate aria-describedby="delete-account-warning">
    ${csrfField(context.csrfToken)}
    <input type="hidden" name="_method" value="DELETE">
    ${input(t, state, { name: 'password', id: 'field-delete-password', type: 'password', label: t('account.delete_password'), autocomplete: 'current-password', required: true })}
    <div class="actions"><button type="submit" class="button danger">${t('account.delete_button')}</button></div>
  </form>`,
      'danger-zone',
    );
  },
};
