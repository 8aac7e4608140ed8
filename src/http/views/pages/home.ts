import { type Html, html } from '../../../lib/html.ts';
import { statusMessage } from '../forms.ts';
import { type Account, layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

/** The welcome page: what the service is, and the way in (or back to the dashboard). */
export function homePage(viewContext: ViewContext, account: Account | null, status: unknown): Html {
  const t = viewContext.t;
  const { appName } = viewContext.site;
  return layout(viewContext, {
    title: t('pages.home'),
    account,
    body: html`<div class="page">
  ${statusMessage(status)}
  <section class="hero">
    <h1>${t('pages.home_title', { app: appName })}</h1>
    <p class="lead">${t('pages.home_lead')}</p>
    <p class="hero-actions">${
      account
        ? html`<a class="button" href="/dashboard">${t('pages.go_to_dashboard')}</a>`
        : html`<a class="button" href="/register">${t('pages.create_account')}</a> <a class="button secondary" href="/login">${t('pages.log_in')}</a>`
    }</p>
  </section>
  <ul class="features">
    <li class="card"><h2>${t('pages.feature_sessions')}</h2><p>${t('pages.feature_sessions_text')}</p></li>
    <li class="card"><h2>${t('pages.feature_tokens')}</h2><p>${t('pages.feature_tokens_text')}</p></li>
    <li class="card"><h2>${t('pages.feature_languages')}</h2><p>${t('pages.feature_languages_text')}</p></li>
  </ul>
</div>`,
  });
}
