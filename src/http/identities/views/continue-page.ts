import { type Html, html } from '../../../lib/html.ts';
import { layout } from '../../views/layout.ts';
import type { ViewContext } from '../../views/view-context.ts';

/**
 * The page a link from the account page passes through on its way to the provider: it moves on at once
 * (a `Refresh` header, no script), with a link for a browser that does not. A 302 would not do here:
 * the link is usually reached through the password confirmation's form, and browsers hold every
 * redirect a form submission follows to the page's CSP `form-action 'self'` — a redirect to the
 * provider's origin would be blocked (docs/guides/login-providers.md).
 */
export function continuePage(request: ViewContext, provider: string, url: string): Html {
  const t = request.t;
  return layout(request, {
    title: t('identities.continue_title', { provider }),
    account: null,
    body: html`<section class="card narrow auth-card">
  <h1>${t('identities.continue_title', { provider })}</h1>
  <p class="lead">${t('identities.continue_lead', { provider })}</p>
  <div class="actions"><a class="button block" href="${url}">${t('identities.continue_with', { provider })}</a></div>
</section>`,
  });
}
