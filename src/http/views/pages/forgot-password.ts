import { type Html, html } from '../../../lib/html.ts';
import { csrfField, type FormState, formTitle, input, statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

export function forgotPasswordPage(
  viewContext: ViewContext,
  state: FormState,
  csrfToken: string,
  status: unknown,
): Html {
  const t = viewContext.t;
  return layout(viewContext, {
    title: formTitle(t, t('passwords.forgot_title'), state),
    account: null,
    body: html`<section class="card narrow auth-card">
  <h1>${t('passwords.forgot_title')}</h1>
  <p class="lead">${t('passwords.forgot_lead')}</p>
  ${statusMessage(status)}
  <form method="post" action="/forgot-password" novalidate>
    ${csrfField(csrfToken)}
    ${input(t, state, { name: 'email', type: 'email', label: t('pages.email'), autocomplete: 'email', required: true, autofocus: true })}
    <div class="actions">
      <button type="submit" class="button block">${t('passwords.send_link')}</button>
    </div>
  </form>
  <p class="links"><a href="/login">${t('passwords.back_to_login')}</a></p>
</section>`,
  });
}
