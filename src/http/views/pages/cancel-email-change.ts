import { type Html, html } from '../../../lib/html.ts';
import { csrfField, statusMessage } from '../forms.ts';
import { layout } from '../layout.ts';
import type { ViewContext } from '../view-context.ts';

export interface CancelEmailChangeView {
  /** The address the account was about to move to; null once the change is cancelled. */
  readonly pending: string | null;
  /** Where the button posts: the link itself (its signature is the proof). */
  readonly action: string;
  readonly csrfToken: string;
  readonly status?: string;
}

/**
 * GET /email/cancel-change/{id}/{hash}: what the link mailed to the current address would cancel, and
 * one button that does it (a GET changes nothing: mail scanners open links). After the button, the
 * same card says it is done.
 */
export function cancelEmailChangePage(viewContext: ViewContext, view: CancelEmailChangeView): Html {
  const t = viewContext.t;
  const { appName } = viewContext.site;
  return layout(viewContext, {
    title: t('account.cancel_change_title'),
    account: null,
    body: html`<section class="card narrow auth-card">
  <h1>${t('account.cancel_change_title')}</h1>
  ${statusMessage(view.status)}
  ${
    view.pending === null
      ? ''
      : html`<p>${t('account.cancel_change_lead', { app: appName, email: view.pending })}</p>
  <form method="post" action="${view.action}">
    ${csrfField(view.csrfToken)}
    <div class="actions"><button type="submit" class="button block">${t('account.cancel_email_change')}</button></div>
  </form>`
  }
</section>`,
  });
}
