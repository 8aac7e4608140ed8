import { type Html, html } from '../../lib/html.ts';
import { safeLocalPath } from '../request-context.ts';
import { type Account, layout } from './layout.ts';
import type { ViewContext } from './view-context.ts';

export interface ErrorPageView {
  readonly status: number;
  /**
   * A message worth showing a person beside the plain explanation (e.g. "your panel access has been
   * withdrawn", a form's throttle text), or null. Laravel's wording for API clients ("Invalid
   * signature.", "CSRF token mismatch.") stays in JSON answers and is never the page's text.
   */
  readonly detail: string | null;
  /** Seconds from Retry-After, for 429. */
  readonly retryAfter: number | null;
  /** The signed-in web account (header links kept), null for a guest, undefined when unknown (panel, 500). */
  readonly account: Account | null | undefined;
  /** A same-site page the browser came from, for "Go back". */
  readonly back: string | null;
}

/** Statuses with their own wording; any other 4xx reads as "could not be handled". */
const KNOWN = new Set([403, 404, 419, 429, 500, 503]);

/**
 * Error pages in plain language (404, 403, 419, 429, 500, 503, and a generic one), each with a way on:
 * back to the page before, home or the dashboard, and — where a session may have ended — log in again.
 */
export function errorPage(viewContext: ViewContext, view: ErrorPageView): Html {
  const t = viewContext.t;
  const kind = KNOWN.has(view.status) ? String(view.status) : view.status >= 500 ? '500' : 'other';
  // 419 keeps Laravel's page title, "Page Expired" (docs/reference/errors.md); the text below explains it.
  const title = kind === '419' ? t('http.page_expired') : t(`http.errors.${kind}.title`);
  // A busy or throttled page says one thing once: the form's own words when it gave some, else the plain ones.
  const busy = kind === '429' || kind === '503';
  const text =
    busy && view.detail
      ? view.detail
      : kind === '429' && view.retryAfter !== null
        ? t('http.errors.429.wait', { count: view.retryAfter })
        : t(`http.errors.${kind}.text`);
  const detail = busy ? null : view.detail;
  const admin = viewContext.url.startsWith('/admin');
  const links: Html[] = [];
  // A page that was only read can simply be asked for again (a refused form comes back as itself).
  const again = busy && viewContext.method === 'GET' ? safeLocalPath(viewContext.url, '') : '';
  if (again !== '') links.push(html`<a class="button" href="${again}">${t('http.errors.try_again')}</a>`);
  if (view.back !== null)
    links.push(html`<a class="button" href="${view.back}">${t('http.errors.go_back')}</a>`);
  if (admin) links.push(html`<a class="button secondary" href="/admin">${t('http.errors.panel_home')}</a>`);
  else if (view.account)
    links.push(html`<a class="button secondary" href="/dashboard">${t('pages.go_to_dashboard')}</a>`);
  else links.push(html`<a class="button secondary" href="/">${t('pages.home')}</a>`);
  if ((kind === '419' || kind === '403') && !view.account)
    links.push(
      html`<a class="button secondary" href="${admin ? '/admin/login' : '/login'}">${t('http.errors.log_in_again')}</a>`,
    );
  return layout(viewContext, {
    title,
    variant: admin ? 'admin' : undefined,
    account: admin ? undefined : view.account,
    body: html`<section class="card narrow error-page">
  <p class="status-code">${view.status}</p>
  <h1>${title}</h1>
  <p>${text}</p>
  ${detail ? html`<p class="detail">${detail}</p>` : ''}
  <p class="error-actions">${links}</p>
</section>`,
  });
}
