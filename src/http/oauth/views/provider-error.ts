import { type Html, html } from '../../../lib/html.ts';
import { layout } from '../../views/layout.ts';
import type { ViewContext } from '../../views/view-context.ts';

export interface ProviderErrorView {
  readonly status: number;
  /** The OAuth error code and description the library gives (RFC 6749 §4.1.2.1 wording). */
  readonly error: string;
  readonly description: string | null;
  /** A logout request (RP-initiated logout), not a sign-in: the title says which. */
  readonly logout?: boolean;
}

/**
 * An authorization or logout request Gatehouse answers itself instead of going back to the client: an
 * unknown client, a redirect URI that is not registered (never followed: RFC 6749 §4.1.2.1), an
 * expired or broken interaction. Plain words first, the technical reason for whoever debugs the client.
 */
export function providerErrorPage(request: ViewContext, view: ProviderErrorView): Html {
  const { t } = request;
  const server = view.status >= 500;
  const title = server
    ? t('http.errors.500.title')
    : t(view.logout ? 'oauth.error.logout_title' : 'oauth.error.title');
  return layout(request, {
    title,
    body: html`<section class="card narrow error-page">
  <p class="status-code">${view.status}</p>
  <h1>${title}</h1>
  <p>${server ? t('http.errors.500.text') : t('oauth.error.text')}</p>
  ${server ? '' : html`<p class="detail">${t('oauth.error.reason')} <code>${view.error}</code>${view.description ? html` — ${view.description}` : ''}</p>`}
  <p class="error-actions"><a class="button secondary" href="/">${t('pages.home')}</a></p>
</section>`,
  });
}
