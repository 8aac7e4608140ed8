import type { FastifyRequest } from 'fastify';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { fixed } from '../fixed.ts';
import { breakableEmail, formatDate } from '../format.ts';
import { statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';

/** Everything on the dashboard that is the same for every reader of one language (views/fixed.ts). */
const text = fixed(({ t }) => ({
  title: t('pages.dashboard'),
  heading: html`${t('pages.dashboard')}`,
  unverifiedNotice: html`<div class="notice" role="note"><p>${t('pages.unverified_notice')}</p><a class="button small" href="/email/verify">${t('pages.verify_email')}</a></div>`,
  yourAccount: html`${t('pages.your_account')}`,
  name: html`${t('pages.name')}`,
  email: html`${t('pages.email')}`,
  verifiedBadge: html`<span class="badge ok">${t('pages.verified_badge')}</span>`,
  unverifiedBadge: html`<span class="badge warn">${t('pages.unverified_badge')}</span>`,
  memberSince: html`${t('pages.member_since')}`,
  viewProfile: html`${t('pages.view_profile')}`,
  security: html`<section class="card">
      <h2>${t('pages.security')}</h2>
      <p>${t('pages.security_text')}</p>
      <ul class="checklist">
        <li>${t('pages.security_session')}</li>
        <li>${t('pages.security_tokens')}</li>
      </ul>
    </section>`,
}));

export function dashboardPage(request: FastifyRequest, user: User, csrfToken: string, status: unknown): Html {
  const fixedText = text(request);
  const verified = user.emailVerifiedAt !== null;
  return layout(request, {
    title: fixedText.title,
    account: { name: user.name, csrfToken },
    body: html`<div class="page">
  ${statusMessage(status)}
  <header class="page-header">
    <h1>${fixedText.heading}</h1>
    <p class="lead">${request.t('pages.welcome', { name: user.name })}</p>
  </header>
  ${verified ? '' : fixedText.unverifiedNotice}
  <div class="grid">
    <section class="card">
      <h2>${fixedText.yourAccount}</h2>
      <dl class="facts">
        <div><dt>${fixedText.name}</dt><dd>${user.name}</dd></div>
        <div><dt>${fixedText.email}</dt><dd><span>${breakableEmail(user.email)}</span> ${verified ? fixedText.verifiedBadge : fixedText.unverifiedBadge}</dd></div>
        <div><dt>${fixedText.memberSince}</dt><dd>${formatDate(request.locale, user.createdAt)}</dd></div>
      </dl>
      <p><a href="/profile">${fixedText.viewProfile}</a></p>
    </section>
    ${fixedText.security}
  </div>
</div>`,
  });
}
