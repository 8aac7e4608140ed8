import type { FastifyRequest } from 'fastify';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { breakableEmail, formatDate } from '../format.ts';
import { statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';

export function dashboardPage(request: FastifyRequest, user: User, csrfToken: string, status: unknown): Html {
  const { t } = request;
  const verified = user.emailVerifiedAt !== null;
  return layout(request, {
    title: t('pages.dashboard'),
    account: { name: user.name, csrfToken },
    body: html`<div class="page">
  ${statusMessage(status)}
  <header class="page-header">
    <h1>${t('pages.dashboard')}</h1>
    <p class="lead">${t('pages.welcome', { name: user.name })}</p>
  </header>
  ${verified ? '' : html`<div class="notice" role="note"><p>${t('pages.unverified_sent', { email: user.email })}</p><a class="button small" href="/email/verify">${t('pages.verify_email')}</a></div>`}
  <div class="grid">
    <section class="card">
      <h2>${t('pages.your_account')}</h2>
      <dl class="facts">
        <div><dt>${t('pages.name')}</dt><dd>${user.name}</dd></div>
        <div><dt>${t('pages.email')}</dt><dd><span>${breakableEmail(user.email)}</span> ${verified ? html`<span class="badge ok">${t('pages.verified_badge')}</span>` : html`<span class="badge warn">${t('pages.unverified_badge')}</span>`}</dd></div>
        <div><dt>${t('pages.member_since')}</dt><dd>${formatDate(request.locale, user.createdAt)}</dd></div>
      </dl>
      <p><a href="/profile">${t('pages.view_profile')}</a></p>
    </section>
    <section class="card">
      <h2>${t('pages.security')}</h2>
      <p>${t('pages.security_text')}</p>
      <ul class="checklist">
        <li>${t('pages.security_session')}</li>
        <li>${t('pages.security_tokens')}</li>
      </ul>
    </section>
  </div>
</div>`,
  });
}
