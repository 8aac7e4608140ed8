import type { FastifyRequest } from 'fastify';
import { type Html, html } from '../../../lib/html.ts';
import type { User } from '../../../users/user.ts';
import { csrfField, statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';

/** GET /email/verify: what to do next, and a resend button (a form: it changes state, so it needs CSRF). */
export function verifyEmailPage(
  request: FastifyRequest,
  user: User,
  csrfToken: string,
  status: unknown,
): Html {
  const t = request.t;
  return layout(request, {
    title: t('verification.title'),
    account: { name: user.name, csrfToken },
    body: html`<section class="card narrow auth-card">
  <h1>${t('verification.title')}</h1>
  ${statusMessage(status)}
  <p>${t('verification.notice')}</p>
  <p class="muted">${t('verification.sent_to', { email: user.email })}</p>
  <form method="post" action="/email/verification-notification">
    ${csrfField(csrfToken)}
    <div class="actions">
      <button type="submit" class="button block">${t('verification.resend')}</button>
    </div>
  </form>
</section>`,
  });
}
