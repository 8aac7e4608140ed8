import type { FastifyRequest } from 'fastify';
import { type Html, html, raw } from '../../../lib/html.ts';
import type { TwoFactorState } from '../../../two-factor/two-factor.ts';
import type { User } from '../../../users/user.ts';
import { csrfField, type FormState, formTitle, input, statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';

export interface TwoFactorView {
  readonly user: User;
  readonly csrfToken: string;
  readonly state: TwoFactorState;
  /** While enrolling: the secret, its key URI and the QR code of it (SVG markup from `qrcode`). */
  readonly setup: { secret: string; url: string; svg: string } | null;
  readonly recoveryCodes: readonly string[];
  readonly status?: unknown;
  readonly appName: string;
}

/**
 * /user/two-factor, behind a password confirmation: set up (QR code, the secret for typing in, the
 * recovery codes, the first code), or manage (recovery codes, new ones, turn off). No script needed:
 * the copy button appears only when /assets/app.js runs; the download is a plain link.
 */
export function twoFactorPage(request: FastifyRequest, state: FormState, view: TwoFactorView): Html {
  const t = request.t;
  const title = t('two_factor.title');
  const body =
    view.state.status === 'off'
      ? offBody(request, view)
      : view.state.status === 'enrolling'
        ? enrollingBody(request, state, view)
        : onBody(request, view);
  return layout(request, {
    title: formTitle(t, title, state),
    account: { name: view.user.name, csrfToken: view.csrfToken },
    body: html`<div class="page">
  ${statusMessage(view.status)}
  <header class="page-header">
    <h1>${title}</h1>
    <p class="lead">${t('two_factor.lead')}</p>
  </header>
  ${body}
  <p class="links"><a href="/profile">${t('two_factor.back')}</a></p>
</div>`,
  });
}

function offBody(request: FastifyRequest, view: TwoFactorView): Html {
  const t = request.t;
  return html`<section class="card">
  <h2>${t('two_factor.off_title')}</h2>
  <p>${t('two_factor.off_lead')}</p>
  ${postButton(view.csrfToken, '/user/two-factor-authentication', t('two_factor.enable'))}
</section>`;
}

function enrollingBody(request: FastifyRequest, state: FormState, view: TwoFactorView): Html {
  const t = request.t;
  const setup = view.setup!;
  return html`<section class="card two-factor-setup">
  <h2>${t('two_factor.step_scan')}</h2>
  <p>${t('two_factor.scan_lead')}</p>
  <div class="qr-code" role="img" aria-label="${t('two_factor.qr_label')}">${raw(setup.svg)}</div>
  <p>${t('two_factor.manual_lead')}</p>
  <p><code class="secret-key" id="secret-key">${spaced(setup.secret)}</code></p>
</section>
<section class="card">
  <h2>${t('two_factor.step_codes')}</h2>
  ${recoveryCodes(request, view)}
</section>
<section class="card">
  <h2>${t('two_factor.step_confirm')}</h2>
  <form method="post" action="/user/confirmed-two-factor-authentication" novalidate>
    ${csrfField(view.csrfToken)}
    ${input(t, state, { name: 'code', label: t('two_factor.code'), autocomplete: 'one-time-code', inputmode: 'numeric', required: true, autofocus: true, hint: t('two_factor.confirm_hint') })}
    <div class="actions">
      <button type="submit" class="button">${t('two_factor.confirm')}</button>
    </div>
  </form>
  ${deleteButton(view.csrfToken, t('two_factor.cancel'))}
</section>`;
}

function onBody(request: FastifyRequest, view: TwoFactorView): Html {
  const t = request.t;
  return html`<section class="card">
  <h2>${t('two_factor.on_title')}</h2>
  <p>${t('two_factor.on_lead')}</p>
</section>
<section class="card">
  <h2>${t('two_factor.recovery_codes')}</h2>
  <p class="muted">${t('two_factor.codes_left', { count: view.state.recoveryCodesLeft })}</p>
  ${recoveryCodes(request, view)}
  ${postButton(view.csrfToken, '/user/two-factor-recovery-codes', t('two_factor.regenerate'), 'secondary')}
</section>
<section class="card">
  <h2>${t('two_factor.disable_title')}</h2>
  <p>${t('two_factor.disable_lead')}</p>
  <details class="confirm">
    <summary class="button danger-outline">${t('two_factor.disable')}</summary>
    <div class="confirm-box" role="group">
      <p>${t('two_factor.disable_confirm')}</p>
      ${deleteButton(view.csrfToken, t('two_factor.disable'), 'danger small')}
    </div>
  </details>
</section>`;
}

/** The unused codes, a copy button (script only) and a plain-text download (no script needed). */
function recoveryCodes(request: FastifyRequest, view: TwoFactorView): Html {
  const t = request.t;
  if (view.recoveryCodes.length === 0) return html`<p class="empty">${t('two_factor.no_codes')}</p>`;
  const text = `${view.appName} ${t('two_factor.recovery_codes')} (${view.user.email})\n\n${view.recoveryCodes.join('\n')}\n`;
  const file = `${view.appName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-recovery-codes.txt`;
  return html`<p>${t('two_factor.codes_lead')}</p>
  <ul class="recovery-codes" id="recovery-codes">${view.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
  <div class="actions">
    <button type="button" class="button secondary small" data-copy="recovery-codes" data-copied="${t('two_factor.copied')}" hidden>${t('two_factor.copy')}</button>
    <a class="button secondary small" download="${file}" href="data:text/plain;charset=utf-8,${encodeURIComponent(text)}">${t('two_factor.download')}</a>
  </div>`;
}

function postButton(csrf: string, action: string, label: string, variant = ''): Html {
  return html`<form method="post" action="${action}" class="inline">${csrfField(csrf)}<button type="submit" class="button ${variant}">${label}</button></form>`;
}

/** Turning off (or abandoning a setup): DELETE through the form's `_method` (docs/guides/account.md). */
function deleteButton(csrf: string, label: string, variant = 'danger-outline'): Html {
  return html`<form method="post" action="/user/two-factor-authentication" class="inline">${csrfField(csrf)}<input type="hidden" name="_method" value="DELETE"><button type="submit" class="button ${variant}">${label}</button></form>`;
}

/** "JBSW Y3DP …": groups of four are easier to type from a screen. */
function spaced(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}
