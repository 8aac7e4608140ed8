import type { LinkCheck } from '../../../auth/verification/email-verification.ts';
import type { Translate } from '../../../i18n/i18n.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { breakableEmail } from '../format.ts';
import { csrfField, type FormState, formTitle, input, statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

export interface VerifyNoticeView {
  readonly t: Translate;
  readonly user: User;
  readonly csrfToken: string;
  readonly status: unknown;
  /** New links allowed per minute. */
  readonly limit: number;
  /** Seconds until the resend button works again, or null when it works now. */
  readonly waitSeconds: number | null;
  /** The address or delete form of this page that failed: its errors and input. */
  readonly failed?: { readonly section: string; readonly state: FormState } | undefined;
}

/**
 * GET /email/verify: where the link went, a resend button (a form: it changes state, so it needs
 * CSRF), how often it may be used and — when used up — when it works again, and the ways out: correct a
 * mistyped address (the link then goes to the corrected one), delete the account, or log out.
 */
export function verifyEmailPage(viewContext: ViewContext, view: VerifyNoticeView): Html {
  const { t, user } = view;
  const state = (section: string) => (view.failed?.section === section ? view.failed.state : {});
  return layout(viewContext, {
    title: formTitle(t, t('verification.title'), view.failed?.state ?? {}),
    account: { name: user.name, csrfToken: view.csrfToken },
    body: html`<section class="card narrow auth-card">
  <h1>${t('verification.title')}</h1>
  ${statusMessage(view.status)}
  <p>${t('verification.notice')}</p>
  <p class="muted">${t('verification.sent_to_before')} <strong>${breakableEmail(user.email)}</strong></p>
  ${
    view.waitSeconds === null
      ? ''
      : html`<div class="notice" role="alert"><p>${t('verification.wait', { count: view.waitSeconds })}</p></div>`
  }
  <form method="post" action="/email/verification-notification">
    ${csrfField(view.csrfToken)}
    <div class="actions">
      <button type="submit" class="button block" aria-describedby="resend-limit">${t('verification.resend')}</button>
    </div>
  </form>
  <p class="hint" id="resend-limit">${t('verification.limit', { count: view.limit })}</p>
  ${changeAddress(view, state('profile-information'))}
  ${deleteAccount(view, state('delete-account'))}
  ${logOutLine(viewContext, view.csrfToken)}
</section>`,
  });
}

/** A mistyped address, corrected here (PUT /user/profile-information): the new link goes to it. */
function changeAddress(view: VerifyNoticeView, state: FormState): Html {
  const { t, user } = view;
  const failed = state.errors !== undefined;
  return html`<details class="notice-option"${failed ? html` open` : ''}>
    <summary>${t('verification.wrong_address')}</summary>
    <form method="post" action="/user/profile-information" novalidate>
      ${csrfField(view.csrfToken)}
      <input type="hidden" name="_method" value="PUT">
      <input type="hidden" name="name" value="${user.name}">
      ${input(t, { ...state, old: { email: user.email, ...state.old } }, { name: 'email', type: 'email', label: t('verification.correct_address'), autocomplete: 'email', required: true, hint: t('verification.correct_address_hint') })}
      <div class="actions"><button type="submit" class="button secondary">${t('verification.change_address')}</button></div>
    </form>
  </details>`;
}

/** Not wanted after all (DELETE /user, with the password): gone at once, no mail needed. */
function deleteAccount(view: VerifyNoticeView, state: FormState): Html {
  const { t } = view;
  const failed = state.errors !== undefined;
  const refused = state.errors?.['account']?.[0];
  return html`<details class="notice-option"${failed ? html` open` : ''}>
    <summary>${t('verification.delete_account')}</summary>
    ${refused ? html`<div class="notice" role="alert"><p>${refused}</p></div>` : ''}
    <p class="muted small">${t('verification.delete_lead')}</p>
    <form method="post" action="/user" novalidate>
      ${csrfField(view.csrfToken)}
      <input type="hidden" name="_method" value="DELETE">
      ${input(t, state, { name: 'password', id: 'field-delete-password', type: 'password', label: t('account.delete_password'), autocomplete: 'current-password', required: true })}
      <div class="actions"><button type="submit" class="button danger">${t('account.delete_button')}</button></div>
    </form>
  </details>`;
}

function logOutLine(viewContext: ViewContext, csrfToken: string): Html {
  const t = viewContext.t;
  return html`<form method="post" action="/logout" class="links">${csrfField(csrfToken)}${t('verification.not_you')} <button type="submit" class="link-button inline-link">${t('pages.log_out')}</button></form>`;
}

export interface LinkProblemView {
  readonly user: User;
  readonly csrfToken: string;
  readonly problem: Exclude<LinkCheck, 'valid'>;
  readonly expireMinutes: number;
}

/**
 * A verification link that does not work, in plain words: expired or damaged (send a new one), or
 * meant for another account than the one signed in (log out, then open it again).
 */
export function verificationLinkPage(viewContext: ViewContext, view: LinkProblemView): Html {
  const t = viewContext.t;
  const otherUser = view.problem === 'other-user';
  const title = otherUser ? t('verification.other_user_title') : t('verification.bad_link_title');
  return layout(viewContext, {
    title,
    account: { name: view.user.name, csrfToken: view.csrfToken },
    body: html`<section class="card narrow auth-card">
  <h1>${title}</h1>
  ${
    otherUser
      ? html`<p>${t('verification.other_user_text', { name: view.user.name })}</p>
  <form method="post" action="/logout">${csrfField(view.csrfToken)}<div class="actions"><button type="submit" class="button block">${t('pages.log_out')}</button></div></form>`
      : html`<p>${t('verification.bad_link_text', { minutes: view.expireMinutes })}</p>
  <form method="post" action="/email/verification-notification">${csrfField(view.csrfToken)}<div class="actions"><button type="submit" class="button block">${t('verification.send_new')}</button></div></form>
  <p class="links"><a href="/email/verify">${t('verification.title')}</a></p>`
  }
</section>`,
  });
}
