import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../auth/passwords/password-policy.ts';
import { type Html, html } from '../../../lib/html.ts';
import { csrfField, type FormState, formTitle, input, passwordRules } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

/** The sign-up form; `providers`: the "Continue with …" buttons (views/login-providers.ts), if any. */
export function registerPage(
  viewContext: ViewContext,
  state: FormState,
  csrfToken: string,
  providers: Html | null,
): Html {
  const t = viewContext.t;
  return layout(viewContext, {
    title: formTitle(t, t('pages.register_title'), state),
    account: null,
    body: html`<section class="card narrow auth-card">
  <h1>${t('pages.register_title')}</h1>
  <p class="lead">${t('pages.register_lead')}</p>
  <form method="post" action="/register" novalidate>
    ${csrfField(csrfToken)}
    ${input(t, state, { name: 'name', label: t('pages.name'), autocomplete: 'name', required: true, autofocus: true })}
    ${input(t, state, { name: 'email', type: 'email', label: t('pages.email'), autocomplete: 'email', required: true })}
    ${input(t, state, {
      name: 'password',
      type: 'password',
      label: t('pages.password'),
      autocomplete: 'new-password',
      required: true,
      details: passwordRules(t, PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH),
    })}
    ${input(t, state, { name: 'password_confirmation', type: 'password', label: t('pages.confirm_password'), autocomplete: 'new-password', required: true })}
    <div class="actions">
      <button type="submit" class="button block">${t('pages.register')}</button>
    </div>
  </form>
  ${providers ?? ''}
  <p class="links">${t('pages.already_registered')} <a href="/login">${t('pages.log_in')}</a></p>
</section>`,
  });
}
