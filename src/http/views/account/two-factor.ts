import type { Translate } from '../../../i18n/i18n.ts';
import { type Html, html, raw } from '../../../lib/html.ts';
import type { TwoFactorState } from '../../../two-factor/two-factor.ts';
import type { User } from '../../../users/user.ts';
import { csrfField, type FormState, formTitle, input } from '../forms.ts';
import type { ViewContext } from '../view-context.ts';
import { accountFrame } from './account-page.ts';
import type { AccountArea } from './page.ts';

export interface TwoFactorView {
  readonly t: Translate;
  readonly user: User;
  readonly csrfToken: string;
  readonly state: TwoFactorState;
  /** While enrolling: the secret, its key URI and the QR code of it (SVG markup from `qrcode`). */
  readonly setup: { secret: string; url: string; svg: string } | null;
  readonly recoveryCodes: readonly string[];
  readonly status?: unknown;
  readonly appName: string;
  /** The account area's navigation, and the area this page belongs to (Security). */
  readonly areas: readonly AccountArea[];
  readonly area: AccountArea;
}

/** The page's form field for "I have saved my recovery codes" (docs/guides/two-factor.md). */
export const SAVED_CODES_FIELD = 'saved_codes';
/** Marks a confirmation sent from the setup page, which asks for SAVED_CODES_FIELD (JSON clients do not). */
export const SETUP_FORM_FIELD = 'setup_form';

/**
 * /user/two-factor, behind a password confirmation, inside the account area under Security. Setting
 * up goes in the order a person does it: scan the QR code (first thing on the page, nothing focused
 * below it; on a phone a link opens the authenticator app itself), put the recovery codes away, then
 * tick that they are saved and type the first code, which turns it on. Managing: the codes left, new
 * ones, turning it off. No script needed: the copy buttons appear only when /assets/app.js runs; the
 * download is a plain link.
 */
export function twoFactorPage(viewContext: ViewContext, state: FormState, view: TwoFactorView): Html {
  const { t } = view;
  const body =
    view.state.status === 'off'
      ? offBody(view)
      : view.state.status === 'enrolling'
        ? enrollingBody(state, view)
        : onBody(view);
  return accountFrame(viewContext, {
    t,
    user: view.user,
    csrfToken: view.csrfToken,
    areas: view.areas,
    current: view.area,
    title: formTitle(t, t('two_factor.title'), state),
    status: view.status,
    body: html`<p class="breadcrumb"><a href="/profile/security">${t('account.area.security')}</a></p>
  <header class="subpage-header">
    <h2>${t('two_factor.title')}</h2>
    <p class="muted">${t('two_factor.lead')}</p>
  </header>
  ${body}`,
  });
}

function offBody(view: TwoFactorView): Html {
  const { t } = view;
  return html`<section class="card account-section" aria-labelledby="two-factor-off-title">
  <h3 id="two-factor-off-title">${t('two_factor.off_title')}</h3>
  <p>${t('two_factor.off_lead')}</p>
  <p class="muted">${t('two_factor.needs_app')}</p>
  ${postButton(view.csrfToken, '/user/two-factor-authentication', t('two_factor.enable'))}
</section>`;
}

function enrollingBody(state: FormState, view: TwoFactorView): Html {
  const { t } = view;
  const setup = view.setup!;
  const savedError = state.errors?.[SAVED_CODES_FIELD]?.[0];
  const saved = state.old?.[SAVED_CODES_FIELD] === '1';
  return html`<ol class="setup-steps">
  <li class="card account-section">
    <h3 id="step-scan">${t('two_factor.step_scan')}</h3>
    <div class="qr-step">
      <div class="qr-code" role="img" aria-label="${t('two_factor.qr_label')}">${raw(setup.svg)}</div>
      <div>
        <p>${t('two_factor.scan_lead')}</p>
        <p class="on-phone">${t('two_factor.on_this_phone')} <a class="button secondary small" href="${setup.url}">${t('two_factor.open_app')}</a></p>
        <p>${t('two_factor.manual_lead')}</p>
        <p class="secret-row"><code class="secret-key" id="secret-key">${spaced(setup.secret)}</code>
          <button type="button" class="button secondary small" data-copy="secret-key" data-copy-text="${setup.secret}" data-copied="${t('two_factor.copied')}" hidden>${t('two_factor.copy_key')}</button></p>
      </div>
    </div>
  </li>
  <li class="card account-section">
    <h3 id="step-codes">${t('two_factor.step_codes')}</h3>
    ${recoveryCodes(view)}
  </li>
  <li class="card account-section">
    <h3 id="step-confirm">${t('two_factor.step_confirm')}</h3>
    <form method="post" action="/user/confirmed-two-factor-authentication" novalidate>
      ${csrfField(view.csrfToken)}
      <input type="hidden" name="${SETUP_FORM_FIELD}" value="1">
      <div class="field checkbox${savedError ? ' has-error' : ''}">
        <label><input type="checkbox" name="${SAVED_CODES_FIELD}" value="1"${saved ? html` checked` : ''}${savedError ? html` aria-invalid="true" aria-describedby="saved-codes-error"${firstError(state, SAVED_CODES_FIELD) ? html` autofocus` : ''}` : ''}> ${t('two_factor.saved_codes')}</label>
        ${savedError ? html`<p class="error" id="saved-codes-error">${savedError}</p>` : ''}
      </div>
      ${input(t, state, { name: 'code', label: t('two_factor.code'), autocomplete: 'one-time-code', inputmode: 'numeric', required: true, hint: t('two_factor.confirm_hint') })}
      <div class="actions">
        <button type="submit" class="button">${t('two_factor.confirm')}</button>
      </div>
    </form>
  </li>
</ol>
<div class="cancel-setup">${deleteButton(view.csrfToken, t('two_factor.cancel'), 'link-button')}</div>`;
}

function onBody(view: TwoFactorView): Html {
  const { t } = view;
  return html`<section class="card account-section" aria-labelledby="two-factor-on-title">
  <h3 id="two-factor-on-title">${t('two_factor.on_title')} <span class="badge ok">${t('two_factor.badge_on')}</span></h3>
  <p>${t('two_factor.on_lead')}</p>
</section>
<section class="card account-section" aria-labelledby="recovery-codes-title">
  <h3 id="recovery-codes-title">${t('two_factor.recovery_codes')}</h3>
  <p class="muted">${t('two_factor.codes_left', { count: view.state.recoveryCodesLeft })}</p>
  ${recoveryCodes(view)}
  <div class="actions">${postButton(view.csrfToken, '/user/two-factor-recovery-codes', t('two_factor.regenerate'), 'secondary')}</div>
</section>
<section class="card account-section danger-zone" aria-labelledby="two-factor-disable-title">
  <h3 id="two-factor-disable-title">${t('two_factor.disable_title')}</h3>
  <p>${t('two_factor.disable_lead')}</p>
  <details class="confirm">
    <summary class="button danger-outline">${t('two_factor.disable')}</summary>
    <div class="confirm-box" role="group">
      <p>${t('two_factor.disable_confirm')}</p>
      ${deleteButton(view.csrfToken, t('two_factor.disable'), 'button danger small')}
    </div>
  </details>
</section>`;
}

/** The unused codes, a copy button (script only) and a plain-text download (no script needed). */
function recoveryCodes(view: TwoFactorView): Html {
  const { t } = view;
  if (view.recoveryCodes.length === 0) return html`<p class="empty">${t('two_factor.no_codes')}</p>`;
  const text = `${view.appName} ${t('two_factor.recovery_codes')} (${view.user.email})\n\n${view.recoveryCodes.join('\n')}\n`;
  const file = `${view.appName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-recovery-codes.txt`;
  return html`<p>${t('two_factor.codes_lead')}</p>
  <ul class="recovery-codes" id="recovery-codes">${view.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
  <div class="row-buttons">
    <button type="button" class="button secondary small" data-copy="recovery-codes" data-copied="${t('two_factor.copied')}" hidden>${t('two_factor.copy')}</button>
    <a class="button secondary small" download="${file}" href="data:text/plain;charset=utf-8,${encodeURIComponent(text)}">${t('two_factor.download')}</a>
  </div>`;
}

/** After a failed submit the first invalid field has focus (forms.ts does it for inputs). */
function firstError(state: FormState, name: string): boolean {
  return Object.keys(state.errors ?? {})[0] === name;
}

function postButton(csrf: string, action: string, label: string, variant = ''): Html {
  return html`<form method="post" action="${action}" class="inline">${csrfField(csrf)}<button type="submit" class="button ${variant}">${label}</button></form>`;
}

/** Turning off (or abandoning a setup): DELETE through the form's `_method` (docs/guides/account.md). */
function deleteButton(csrf: string, label: string, classes = 'button danger-outline'): Html {
  return html`<form method="post" action="/user/two-factor-authentication" class="inline">${csrfField(csrf)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="${classes}">${label}</button></form>`;
}

/** "JBSW Y3DP …": groups of four are easier to type from a screen. */
function spaced(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}
