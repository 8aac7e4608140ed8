import type { FastifyRequest } from 'fastify';
import { PASSWORD_MIN_LENGTH } from '../../../auth/password-policy.ts';
import { type Html, html } from '../../../lib/html.ts';
import { csrfField, type FormState, input } from '../forms.ts';
import { layout } from '../layout.ts';

/** The form behind a mailed reset link; the token travels on in a hidden field, never in a log. */
export function resetPasswordPage(
  request: FastifyRequest,
  state: FormState,
  csrfToken: string,
  token: string,
): Html {
  const t = request.t;
  return layout(request, {
    title: t('passwords.reset_title'),
    account: null,
    body: html`<section class="card narrow auth-card">
  <h1>${t('passwords.reset_title')}</h1>
  <p class="lead">${t('passwords.reset_lead')}</p>
  <form method="post" action="/reset-password" novalidate>
    ${csrfField(csrfToken)}
    <input type="hidden" name="token" value="${token}">
    ${input(state, { name: 'email', type: 'email', label: t('pages.email'), autocomplete: 'username', required: true })}
    ${input(state, {
      name: 'password',
      type: 'password',
      label: t('passwords.new_password'),
      autocomplete: 'new-password',
      required: true,
      autofocus: true,
      hint: t('pages.password_hint', { min: PASSWORD_MIN_LENGTH }),
    })}
    ${input(state, { name: 'password_confirmation', type: 'password', label: t('pages.confirm_password'), autocomplete: 'new-password', required: true })}
    <div class="actions">
      <button type="submit" class="button block">${t('passwords.reset_button')}</button>
    </div>
  </form>
</section>`,
  });
}
