import type { Translate } from '../../../i18n/i18n.ts';
import { type Html, html } from '../../../lib/html.ts';
import {
  checkbox,
  csrfField,
  type FormSession,
  type FormState,
  formTitle,
  input,
  statusMessage,
} from '../forms.ts';
import { type Account, layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

export interface LoginPageOptions {
  /** Where the form posts and which session's CSRF token it carries: the web login or the panel's. */
  action: string;
  session: FormSession;
  title: string;
  /** One line under the title. */
  lead?: string;
  variant?: string;
  links?: Html;
  /** The header's account links (null: guest links); the panel leaves it out. */
  account?: Account | null;
  /**
   * Offer "Sign in with a passkey" (the web login, docs/guides/passkeys.md): a form posting to /passkeys/login
   * that /assets/passkeys.js fills with the browser's answer, and conditional UI on the e-mail field.
   */
  passkeys?: { readonly origin: string } | null;
  /** "Continue with …" for each login provider (docs/guides/login-providers.md), under the form. */
  providers?: Html | null;
  /** Why a sign-in at a provider came back here (an alert above the form). */
  alert?: Html;
}

export function loginPage(viewContext: ViewContext, state: FormState, options: LoginPageOptions): Html {
  const t = viewContext.t;
  const { session } = options;
  return layout(viewContext, {
    title: formTitle(t, options.title, state),
    variant: options.variant,
    account: options.account,
    body: html`<section class="card narrow auth-card">
  <h1>${options.title}</h1>
  ${options.lead ? html`<p class="lead">${options.lead}</p>` : ''}
  ${statusMessage(session.status)}
  ${options.alert ?? ''}
  <form method="post" action="${options.action}" novalidate>
    ${csrfField(session.csrfToken)}
    ${input(t, state, { name: 'email', type: 'email', label: t('pages.email'), autocomplete: options.passkeys ? 'username webauthn' : 'username', required: true, autofocus: true })}
    ${input(t, state, { name: 'password', type: 'password', label: t('pages.password'), autocomplete: 'current-password', required: true })}
    ${session.offersRememberMe ? checkbox(state, 'remember', t('pages.remember_me')) : ''}
    <div class="actions">
      <button type="submit" class="button block">${t('pages.log_in')}</button>
    </div>
  </form>
  ${options.passkeys ? passkeyLogin(viewContext, session.csrfToken, state, options.passkeys.origin) : ''}
  ${options.providers ?? ''}
  ${options.links ?? ''}
</section>`,
    scripts: [
      ...(options.passkeys ? ['/assets/passkeys.js'] : []),
      ...(options.providers ? ['/assets/login-providers.js'] : []),
    ],
  });
}

/**
 * The passkey way in: hidden until /assets/passkeys.js finds WebAuthn in the browser (without script
 * there is nothing a person could do with it), shown at once when it comes back with an error. The
 * script puts the browser's answer in `credential` (and the state of "Remember me" in `remember`) and
 * submits the form, so success and failure are ordinary page answers (a redirect; 422 with the error).
 */
function passkeyLogin(viewContext: ViewContext, csrfToken: string, state: FormState, origin: string): Html {
  const t = viewContext.t;
  const error = state.errors?.['credential']?.[0];
  return html`<div class="passkey-login" data-passkey-login${error ? '' : html` hidden`}>
    <p class="divider"><span>${t('passkeys.or')}</span></p>
    <form method="post" action="/passkeys/login" novalidate data-options="/passkeys/login/options" data-error-cancelled="${t('passkeys.cancelled')}" data-error-failed="${t('passkeys.request_failed')}" data-error-security="${securityError(t, origin, '/login')}">
      ${csrfField(csrfToken)}
      <input type="hidden" name="credential" value="">
      <input type="hidden" name="remember" value="">
      <button type="submit" class="button secondary block"${error ? html` aria-describedby="passkey-login-error"` : ''}>${PASSKEY_ICON}${t('passkeys.sign_in')}</button>
      <p class="error" id="passkey-login-error" data-passkey-error role="alert"${error ? '' : html` hidden`}>${error ?? ''}</p>
    </form>
  </div>`;
}

/** What a WebAuthn SecurityError means: passkeys work at APP_URL's origin only (`path` there). */
export function securityError(t: Translate, origin: string, path: string): string {
  return t('passkeys.security_error', { url: `${origin}${path}` });
}

/** A key, drawn inline (markup, allowed by the CSP), decorative: the button's text names it. */
const PASSKEY_ICON = html`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><circle cx="8" cy="12" r="4" fill="none" stroke="currentColor" stroke-width="2"/><path d="M12 12h9m-3 0v3m-3-3v2" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`;
