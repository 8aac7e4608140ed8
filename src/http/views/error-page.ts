import type { FastifyRequest } from 'fastify';
import { type Html, html } from '../../lib/html.ts';
import { layout } from './layout.ts';

export function errorPage(request: FastifyRequest, status: number, message: string): Html {
  const title = status === 419 ? request.t('http.page_expired') : message;
  return layout(request, {
    title,
    body: html`<section class="card narrow error-page">
  <p class="status-code">${status}</p>
  <h1>${title}</h1>
  ${status === 419 ? html`<p>${message}</p>` : ''}
  <p><a class="button" href="/">${request.t('pages.home')}</a></p>
</section>`,
  });
}
