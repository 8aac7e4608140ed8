import { type Html, html } from '../../../lib/html.ts';
import { layout } from '../../views/layout.ts';
import type { ViewContext } from '../../views/view-context.ts';

export interface LogoutView {
  /** The client that asked (from its id_token_hint or client_id), when known. */
  readonly clientName: string | null;
  /** The library's confirmation endpoint and the one-time value that proves the form is ours. */
  readonly action: string;
  readonly xsrf: string;
}

/**
 * RP-initiated logout's confirmation (OpenID Connect RP-Initiated Logout §2): a page cannot end the
 * session with a bare link, the person confirms with a form that carries the library's xsrf value.
 * Works without JavaScript.
 */
export function logoutPage(request: ViewContext, view: LogoutView): Html {
  const { t } = request;
  const { appName } = request.site;
  const question = view.clientName
    ? t('oauth.logout.question_client', { client: view.clientName, app: appName })
    : t('oauth.logout.question', { app: appName });
  return layout(request, {
    title: t('oauth.logout.title'),
    body: html`<section class="card narrow auth-card">
  <h1>${t('oauth.logout.title')}</h1>
  <p>${question}</p>
  <form method="post" action="${view.action}">
    <input type="hidden" name="xsrf" value="${view.xsrf}">
    <div class="actions">
      <button type="submit" class="button" name="logout" value="yes">${t('oauth.logout.yes')}</button>
      <button type="submit" class="button secondary">${t('oauth.logout.no')}</button>
    </div>
  </form>
</section>`,
  });
}

/** After a logout that named no post_logout_redirect_uri: where the browser stops. */
export function loggedOutPage(request: ViewContext, clientName: string | null): Html {
  const { t } = request;
  const { appName } = request.site;
  return layout(request, {
    title: t('oauth.logout.done_title'),
    account: null,
    body: html`<section class="card narrow auth-card">
  <h1>${t('oauth.logout.done_title')}</h1>
  <p>${clientName ? t('oauth.logout.done_client', { client: clientName, app: appName }) : t('oauth.logout.done', { app: appName })}</p>
  <p><a class="button secondary" href="/">${t('pages.home')}</a></p>
</section>`,
  });
}
