import type { FastifyRequest } from 'fastify';
import type { LinkCheck } from '../../../auth/verification/email-verification.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { breakableEmail } from '../format.ts';
import { csrfField, statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';

export interface VerifyNoticeView {
  readonly user: User;
  readonly csrfToken: string;
  readonly status: unknown;
  /** New links allowed per minute. */
  readonly limit: number;
  /** Seconds until the resend button works again, or null when it works now. */
  readonly waitSeconds: number | null;
}

/**
 * GET /email/verify: where the link went, a resend button (a form: it changes state, so it needs
 * CSRF), how often it may be used and — when used up — when it works again, and a way out (log out).
 */
export function verifyEmailPage(request: FastifyRequest, view: VerifyNoticeView): Html {
  const t = request.t;
  const { user } = view;
  return layout(request, {
    title: t('verification.title'),
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
  ${logOutLine(request, view.csrfToken)}
</section>`,
  });
}

function logOutLine(request: FastifyRequest, csrfToken: string): Html {
  const t = request.t;
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
export function verificationLinkPage(request: FastifyRequest, view: LinkProblemView): Html {
  const t = request.t;
  const otherUser = view.problem === 'other-user';
  const title = otherUser ? t('verification.other_user_title') : t('verification.bad_link_title');
  return layout(request, {
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
