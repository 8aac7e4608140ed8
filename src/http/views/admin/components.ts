import type { Page } from '../../../admin/paging.ts';
import { type Html, html } from '../../../lib/html.ts';
import { csrfField } from '../forms.ts';
import type { ViewContext } from '../view-context.ts';

export type Tone = 'ok' | 'warn' | 'danger' | 'muted' | 'accent';

export function badge(text: string, tone: Tone): Html {
  return html`<span class="badge ${tone}">${text}</span>`;
}

export interface ActionOptions {
  action: string;
  label: string;
  csrf: string;
  variant?: 'secondary' | 'danger' | 'danger-outline' | 'primary';
  small?: boolean;
}

/** A one-button form: every state change is a POST carrying the admin session's CSRF token. */
export function actionButton(options: ActionOptions): Html {
  const classes = ['button', options.variant ?? 'secondary', options.small ? 'small' : ''].filter(Boolean);
  return html`<form method="post" action="${options.action}" class="inline">${csrfField(options.csrf)}<button type="submit" class="${classes.join(' ')}">${options.label}</button></form>`;
}

/**
 * A destructive action behind a disclosure: the first click only opens "are you sure?", the second
 * posts. Works without JavaScript (the pages' CSP allows none inline anyway).
 */
export function confirmAction(options: ActionOptions & { question: string }): Html {
  return html`<details class="confirm">
  <summary class="button ${options.variant ?? 'danger-outline'}${options.small ? ' small' : ''}">${options.label}</summary>
  <div class="confirm-box" role="group">
    <p>${options.question}</p>
    ${actionButton({ ...options, variant: 'danger', small: true })}
  </div>
</details>`;
}

/**
 * A destructive action that also asks for the admin's own password (deleting an account): the box
 * holds a labelled password field and the final button. Without JavaScript it works the same.
 */
export function confirmWithPassword(
  options: ActionOptions & { question: string; passwordLabel: string; id: string },
): Html {
  const field = `${options.id}-password`;
  return html`<details class="confirm">
  <summary class="button ${options.variant ?? 'danger-outline'}${options.small ? ' small' : ''}">${options.label}</summary>
  <div class="confirm-box" role="group">
    <p>${options.question}</p>
    <form method="post" action="${options.action}">${csrfField(options.csrf)}
      <div class="field"><label for="${field}">${options.passwordLabel}</label><input id="${field}" name="password" type="password" autocomplete="current-password" required></div>
      <button type="submit" class="button danger small">${options.label}</button>
    </form>
  </div>
</details>`;
}

/** Status message carried over a redirect (POST → redirect → GET). */
export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

export function isFlash(value: unknown): value is Flash {
  const v = value as Flash | null;
  return (
    !!v && typeof v === 'object' && (v.kind === 'ok' || v.kind === 'error') && typeof v.text === 'string'
  );
}

export function flashMessage(flash: Flash | null): Html {
  if (flash === null) return html``;
  return flash.kind === 'ok'
    ? html`<div class="status" role="status">${flash.text}</div>`
    : html`<div class="status alert" role="alert">${flash.text}</div>`;
}

/** Prev/next links that keep the other query parameters (search, sort, filters). */
export function pagination(viewContext: ViewContext, page: Page<unknown>): Html {
  if (page.total === 0) return html``;
  const t = viewContext.t;
  const from = (page.page - 1) * page.pageSize + 1;
  const to = Math.min(page.total, page.page * page.pageSize);
  const link = (n: number) => {
    const [path = '', query = ''] = viewContext.url.split('?');
    const params = new URLSearchParams(query);
    params.delete('lang');
    params.set('page', String(n));
    return `${path}?${params.toString()}`;
  };
  return html`<nav class="pagination" aria-label="${t('admin.pagination.label')}">
  <span class="muted">${t('admin.pagination.showing', { from, to, total: page.total })}</span>
  ${
    page.pages > 1
      ? html`<span class="pager">
    ${page.page > 1 ? html`<a class="button secondary small" href="${link(page.page - 1)}" rel="prev">← ${t('admin.pagination.previous')}</a>` : html`<span class="button secondary small disabled" aria-disabled="true">← ${t('admin.pagination.previous')}</span>`}
    <span class="muted">${t('admin.pagination.page', { page: page.page, pages: page.pages })}</span>
    ${page.page < page.pages ? html`<a class="button secondary small" href="${link(page.page + 1)}" rel="next">${t('admin.pagination.next')} →</a>` : html`<span class="button secondary small disabled" aria-disabled="true">${t('admin.pagination.next')} →</span>`}
  </span>`
      : ''
  }
</nav>`;
}

export interface ListPanelOptions {
  id: string;
  title: string;
  /** A bulk action beside the title ("revoke all"), shown only when there are rows. */
  bulk: Html;
  headers: readonly string[];
  /** The (visually hidden) heading of the last column, which holds each row's action button. */
  actionsLabel: string;
  rows: readonly Html[];
  empty: string;
  note?: string;
  /** A class of the table's own (`passkeys`: its "are you sure?" boxes open inside the row). */
  tableClass?: string;
}

/** A titled panel with a count, a table of rows that each end in an action, or an empty-state line. */
export function listPanel(options: ListPanelOptions): Html {
  const { rows } = options;
  const table = html`<div class="table-wrap"><table class="data${options.tableClass ? ` ${options.tableClass}` : ''}">
    <thead><tr>${options.headers.map((h) => html`<th scope="col">${h}</th>`)}<th scope="col"><span class="visually-hidden">${options.actionsLabel}</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>${options.note ? html`<p class="note">${options.note}</p>` : ''}`;
  return html`<section class="panel" id="${options.id}">
  <header class="panel-head"><h2>${options.title} <span class="count">${rows.length}</span></h2>${rows.length > 0 ? options.bulk : ''}</header>
  ${rows.length === 0 ? emptyState(options.empty) : table}
</section>`;
}

export function emptyState(text: string): Html {
  return html`<p class="empty">${text}</p>`;
}
