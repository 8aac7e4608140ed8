import { type Html, html } from '../../../lib/html.ts';
import { csrfField, type FormState, formTitle, input } from '../forms.ts';
import { type Account, layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

/** Laravel's "secure area" page: the password once more before a sensitive action. */
export function confirmPasswordPage(viewContext: ViewContext, state: FormState, account: Account): Html {
  const t = viewContext.t;
  return layout(viewContext, {
    title: formTitle(t, t('account.confirm_title'), state),
    account,
    body: html`<section class="card narrow auth-card">
  <h1>${t('account.confirm_title')}</h1>
  <p class="lead">${t('account.confirm_lead')}</p>
  <form method="post" action="/user/confirm-password" novalidate>
    ${csrfField(account.csrfToken)}
    ${input(t, state, { name: 'password', type: 'password', label: t('pages.password'), autocomplete: 'current-password', required: true, autofocus: true })}
    <div class="actions">
      <button type="submit" class="button block">${t('account.confirm_button')}</button>
    </div>
  </form>
  <p class="links"><a href="/profile">${t('account.back_to_account')}</a></p>
</section>`,
  });
}
