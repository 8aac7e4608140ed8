import type { Page } from '../../../admin/paging.ts';
import { type Html, html } from '../../../lib/html.ts';
import type { DeliveryRow } from '../../../webhooks/webhook-outbox.repository.ts';
import { cell } from '../table.ts';
import type { ViewContext } from '../view-context.ts';
import { actionButton, badge, emptyState, type Flash, pagination, type Tone } from './components.ts';
import { dateTime, relativeTime } from './format.ts';
import { adminPage } from './shell.ts';

export interface WebhooksView {
  /** The configured endpoints, as the panel may show them (no credentials, no query). */
  readonly endpoints: readonly string[];
  readonly page: Page<DeliveryRow>;
  readonly csrf: string;
  readonly flash: Flash | null;
}

type State = 'delivered' | 'failed' | 'sending' | 'pending';

function stateOf(row: DeliveryRow, now: number): State {
  if (row.sent_at !== null) return 'delivered';
  if (row.failed_at !== null) return 'failed';
  return row.locked_until !== null && row.locked_until > now ? 'sending' : 'pending';
}

const TONES: Record<State, Tone> = { delivered: 'ok', failed: 'danger', sending: 'accent', pending: 'warn' };

/** GET /admin/webhooks: the endpoints and the recent deliveries, each undelivered one with Retry. */
export function webhooksPage(viewContext: ViewContext, view: WebhooksView): Html {
  const t = viewContext.t;
  const now = viewContext.site.now();
  const label = {
    event: t('webhooks.columns.event'),
    endpoint: t('webhooks.columns.endpoint'),
    attempts: t('webhooks.columns.attempts'),
    status: t('webhooks.columns.status'),
    next: t('webhooks.columns.next'),
  };
  const rows = view.page.items.map((row) => {
    const state = stateOf(row, now);
    // What the endpoint last said: its status, else why nothing answered; nothing before a first try.
    const status = row.last_status === null ? null : `HTTP ${row.last_status}`;
    const said = status ?? (state === 'delivered' ? null : row.last_error);
    const answer =
      said === null ? '' : html` <span class="mono ${status ? 'nowrap' : 'wrap'}">${said}</span>`;
    const error =
      status !== null && row.last_error !== null && row.last_error !== status && state !== 'delivered'
        ? html`<br><span class="muted small mono wrap">${row.last_error}</span>`
        : '';
    const next = state === 'pending' ? relativeTime(viewContext, Math.max(row.available_at, now)) : html`—`;
    const retry =
      state === 'pending' || state === 'failed'
        ? actionButton({
            action: `/admin/webhooks/${row.id}/retry`,
            label: t('webhooks.retry'),
            csrf: view.csrf,
            small: true,
          })
        : '';
    return html`<tr>
      ${cell(label.event, html`<span class="mono strong">${row.type}</span><br><span class="muted small">${dateTime(viewContext, row.created_at)}</span>`, 'wrap')}
      ${cell(label.endpoint, html`<span class="mono small wrap">${row.endpoint}</span>`, 'wrap')}
      ${cell(label.attempts, String(row.attempts), 'nowrap')}
      ${cell(label.status, html`${badge(t(`webhooks.state.${state}`), TONES[state])}${answer}${error}`, 'wrap')}
      ${cell(label.next, next, 'nowrap')}
      <td class="right row-action">${retry}</td>
    </tr>`;
  });
  return adminPage(viewContext, {
    title: t('webhooks.title'),
    section: 'webhooks',
    lead: t('webhooks.lead'),
    flash: view.flash,
    body: html`<section class="panel" id="endpoints">
  <header class="panel-head"><h2>${t('webhooks.endpoints')} <span class="count">${view.endpoints.length}</span></h2></header>
  ${
    view.endpoints.length === 0
      ? emptyState(t('webhooks.no_endpoints'))
      : html`<ul class="endpoint-list">${view.endpoints.map((url) => html`<li class="mono small wrap">${url}</li>`)}</ul>`
  }
</section>
<section class="panel" id="deliveries">
  <header class="panel-head"><h2>${t('webhooks.deliveries')} <span class="count">${view.page.total}</span></h2></header>
  ${
    rows.length === 0
      ? emptyState(t('webhooks.none'))
      : html`<div class="table-wrap"><table class="data">
    <thead><tr>
      <th scope="col">${label.event}</th>
      <th scope="col">${label.endpoint}</th>
      <th scope="col">${label.attempts}</th>
      <th scope="col">${label.status}</th>
      <th scope="col">${label.next}</th>
      <th scope="col"><span class="visually-hidden">${t('webhooks.columns.actions')}</span></th>
    </tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
  ${pagination(viewContext, view.page)}
</section>`,
  });
}
