import type { FastifyRequest } from 'fastify';
import type { User } from '../../../users/user.ts';
import { csrfField, statusMessage } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { layout } from '../layout.ts';

export function dashboardPage(request: FastifyRequest, user: User, csrfToken: string, status: unknown): Html {
  const t = request.t;
  return layout(request, {
    title: t('pages.dashboard'),
    body: html`<section class="card">
  ${statusMessage(status)}
  <h1>${t('pages.dashboard')}</h1>
  <p>${t('pages.welcome', { name: user.name })}</p>
  <nav class="page-actions">
    <a class="button secondary" href="/profile">${t('pages.profile')}</a>
    <form method="post" action="/logout" class="inline">${csrfField(csrfToken)}<button type="submit" class="button secondary">${t('pages.log_out')}</button></form>
  </nav>
</section>`,
  });
}
