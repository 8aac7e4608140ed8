import { type Html, html } from '../../../lib/html.ts';
import { layout } from '../../views/layout.ts';
import type { ViewContext } from '../../views/view-context.ts';

/**
 * The step between an interaction (a login, the consent) and the client: a page that moves on by
 * itself (a `Refresh` header, no script) with a link for whoever stops here. Not a redirect: Chromium and
 * Safari hold the redirect chain of a form submission to the form page's CSP `form-action`, which names
 * only this site — the client's redirect URI at the end of that chain would be refused.
 */
export function continuePage(request: ViewContext, target: string): Html {
  const { t } = request;
  return layout(request, {
    title: t('oauth.continue.title'),
    body: html`<section class="card narrow auth-card">
  <h1>${t('oauth.continue.title')}</h1>
  <p><a class="button" href="${target}">${t('oauth.continue.link')}</a></p>
</section>`,
  });
}
