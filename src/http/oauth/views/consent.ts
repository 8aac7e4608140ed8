import { type Html, html } from '../../../lib/html.ts';
import { csrfField } from '../../views/forms.ts';
import { layout } from '../../views/layout.ts';
import type { ViewContext } from '../../views/view-context.ts';
import { scopeDescriptions } from './scope-descriptions.ts';

export interface ConsentView {
  readonly uid: string;
  readonly clientName: string;
  /** Where the browser goes afterwards (the redirect URI's host, or a native app's scheme). */
  readonly returnsTo: string;
  readonly scopes: readonly string[];
  readonly user: { readonly name: string; readonly email: string };
  readonly csrfToken: string;
}

/**
 * The consent screen (docs/guides/oidc-provider.md "Consent"): who asks, as whom, for what — each
 * scope in plain words — and where the browser goes next. Two buttons of one form; no script needed.
 */
export function consentPage(request: ViewContext, view: ConsentView): Html {
  const { t } = request;
  const { appName } = request.site;
  const title = t('oauth.consent.title', { client: view.clientName });
  return layout(request, {
    title,
    body: html`<section class="card narrow auth-card consent">
  <h1>${title}</h1>
  <p class="lead">${t('oauth.consent.lead', { client: view.clientName, app: appName })}</p>
  <p class="consent-account">${t('oauth.consent.signed_in_as', { name: view.user.name, email: view.user.email })}</p>
  <h2 class="consent-heading">${t('oauth.consent.will_be_able', { client: view.clientName })}</h2>
  <ul class="consent-scopes">
    ${scopeDescriptions(t, view.scopes, appName).map((text) => html`<li>${text}</li>`)}
  </ul>
  ${view.returnsTo === '' ? '' : html`<p class="hint">${t('oauth.consent.returns_to', { target: view.returnsTo })}</p>`}
  <form method="post" action="/oauth/interaction/${view.uid}">
    ${csrfField(view.csrfToken)}
    <div class="actions consent-actions">
      <button type="submit" class="button" name="decision" value="allow">${t('oauth.consent.allow')}</button>
      <button type="submit" class="button secondary" name="decision" value="deny">${t('oauth.consent.deny')}</button>
    </div>
  </form>
  <p class="hint">${t('oauth.consent.revoke_hint')}</p>
</section>`,
  });
}
