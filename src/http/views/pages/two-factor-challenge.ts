import { type Html, html } from '../../../lib/html.ts';
import { csrfField, type FormSession, type FormState, formTitle, input, statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

export interface ChallengePageOptions {
  /** The challenge's own path (web or panel): the form posts here. */
  readonly action: string;
  readonly session: FormSession;
  /** Where "back to log in" goes. */
  readonly loginPath: string;
  /** The recovery-code form instead of the code form (`?recovery=1`: works without JavaScript). */
  readonly recovery: boolean;
  readonly variant?: string;
}

/**
 * The second step of a login: one field, a 6-digit code (`one-time-code` lets phones offer the code
 * from an SMS or an app; `inputmode="numeric"` brings up digits) or a recovery code.
 */
export function twoFactorChallengePage(
  viewContext: ViewContext,
  state: FormState,
  options: ChallengePageOptions,
): Html {
  const t = viewContext.t;
  const { session } = options;
  const title = t('two_factor.challenge_title');
  const field = options.recovery
    ? input(t, state, {
        name: 'recovery_code',
        label: t('two_factor.recovery_code'),
        autocomplete: 'off',
        required: true,
        autofocus: true,
      })
    : input(t, state, {
        name: 'code',
        label: t('two_factor.code'),
        autocomplete: 'one-time-code',
        inputmode: 'numeric',
        required: true,
        autofocus: true,
      });
  const other = options.recovery
    ? html`<a href="${options.action}">${t('two_factor.use_code')}</a>`
    : html`<a href="${options.action}?recovery=1">${t('two_factor.use_recovery_code')}</a>`;
  return layout(viewContext, {
    title: formTitle(t, title, state),
    variant: options.variant,
    account: options.variant === undefined ? null : undefined,
    body: html`<section class="card narrow auth-card">
  <h1>${title}</h1>
  <p class="lead">${options.recovery ? t('two_factor.recovery_lead') : t('two_factor.challenge_lead')}</p>
  ${statusMessage(session.status)}
  <form method="post" action="${options.action}" novalidate>
    ${csrfField(session.csrfToken)}
    ${field}
    <div class="actions">
      <button type="submit" class="button block">${t('two_factor.verify')}</button>
    </div>
  </form>
  <p class="links">${other}</p>
  <p class="links"><a href="${options.loginPath}">${t('two_factor.start_over')}</a></p>
</section>`,
  });
}
