import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../auth/passwords/password-policy.ts';
import { type Html, html } from '../../../lib/html.ts';
import { csrfField, type FormState, formTitle, input, passwordRules } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

/** The form behind a mailed reset link; the token travels on in a hidden field, never in a log. */
export function resetPasswordPage(
  viewContext: ViewContext,
  state: FormState,
  csrfToken: string,
  token: string,
  /** The link is known not to work (checked before the form is shown): say so, offer a new one. */
  dead = false,
): Html {
  const t = viewContext.t;
  const invalidLink = dead || state.errors?.['email']?.[0] === t('passwords.token');
  const email = typeof state.old?.['email'] === 'string' ? state.old['email'] : '';
  const newLink = `/forgot-password${email === '' ? '' : `?${new URLSearchParams({ email }).toString()}`}`;
  if (dead) {
    return layout(viewContext, {
      title: t('passwords.invalid_link_title'),
      account: null,
      body: html`<section class="card narrow auth-card">
  <h1>${t('passwords.invalid_link_title')}</h1>
  <p>${t('passwords.invalid_link_help')}</p>
  <div class="actions"><a class="button block" href="${newLink}">${t('passwords.request_new_link')}</a></div>
  <p class="links"><a href="/login">${t('passwords.back_to_login')}</a></p>
</section>`,
    });
  }
  return layout(viewContext, {
    title: formTitle(t, t('passwords.reset_title'), state),
    account: null,
    body: html`<section class="card narrow auth-card">
  <h1>${t('passwords.reset_title')}</h1>
  <p class="lead">${t('passwords.reset_lead')}</p>
  ${invalidLink ? html`<div class="notice" role="note"><p>${t('passwords.invalid_link_help')}</p><a class="button small" href="${newLink}">${t('passwords.request_new_link')}</a></div>` : ''}
  <form method="post" action="/reset-password" novalidate>
    ${csrfField(csrfToken)}
    <input type="hidden" name="token" value="${token}">
    ${input(t, state, { name: 'email', type: 'email', label: t('pages.email'), autocomplete: 'username', required: true })}
    ${input(t, state, {
      name: 'password',
      type: 'password',
      label: t('passwords.new_password'),
      autocomplete: 'new-password',
      required: true,
      autofocus: true,
      details: passwordRules(t, PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH),
    })}
    ${input(t, state, { name: 'password_confirmation', type: 'password', label: t('pages.confirm_password'), autocomplete: 'new-password', required: true })}
    <div class="actions">
      <button type="submit" class="button block">${t('passwords.reset_button')}</button>
    </div>
  </form>
  <p class="links"><a href="${newLink}">${t('passwords.request_new_link')}</a></p>
</section>`,
  });
}
