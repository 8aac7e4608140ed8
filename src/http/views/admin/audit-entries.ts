import type { FastifyRequest } from 'fastify';
import type { AuditEntry, AuditPerson } from '../../../admin/audit-log.ts';
import { type Html, html } from '../../../lib/html.ts';
import { badge, emptyState, type Tone } from './components.ts';
import { dateTime, relativeTime } from './format.ts';

/** A translated name for an event; events added later without a translation show their raw name. */
export function eventLabel(request: FastifyRequest, event: string): string {
  const key = `admin.events.${event.replace(/\./g, '_')}`;
  const label = request.t(key);
  return label === key || label === '' ? event : label;
}

function eventTone(event: string): Tone {
  if (/failed|lockout|theft/.test(event)) return 'danger';
  if (event.startsWith('admin.')) return 'accent';
  if (event.endsWith('login.succeeded')) return 'ok';
  return 'muted';
}

function personCell(
  request: FastifyRequest,
  person: AuditPerson | null,
  fallback: Html | string = '—',
): Html {
  if (person === null) return html`<span class="muted">${fallback}</span>`;
  if (person.name === null)
    return html`<span class="muted">#${person.id} (${request.t('admin.audit.deleted_user')})</span>`;
  return html`<a href="/admin/users/${person.id}">${person.name}</a><br><span class="muted small">${person.email}</span>`;
}

/** A detail's translated name ("token_id" → "Token"); unknown keys show with spaces for underscores. */
function detailLabel(request: FastifyRequest, key: string): string {
  const id = `admin.details.${key}`;
  const label = request.t(id);
  return label === id || label === '' ? key.replace(/_/g, ' ') : label;
}

/**
 * The event's details as "name value" pairs (audit rows never hold secrets, so all are shown), minus
 * an e-mail that merely repeats the subject shown beside it.
 */
function detailsCell(request: FastifyRequest, entry: AuditEntry): Html {
  const pairs = Object.entries(entry.details).filter(
    ([k, v]) => v !== null && typeof v !== 'object' && !(k === 'email' && v === entry.subject?.email),
  );
  if (pairs.length === 0) return html``;
  return html`<span class="details">${pairs.map(([k, v]) => html`<span><b>${detailLabel(request, k)}</b> ${String(v)}</span>`)}</span>`;
}

/** Who acted: "Same user" when people act on themselves, "Command line" for admin events without an actor. */
function actorCell(request: FastifyRequest, entry: AuditEntry, system: string): Html {
  if (entry.actor !== null && entry.actor.id === entry.subject?.id) {
    return html`<span class="muted">${request.t('admin.audit.self')}</span>`;
  }
  return personCell(request, entry.actor, entry.event.startsWith('admin.') ? system : '—');
}

export interface AuditTableOptions {
  /** Compact: relative times, no actor or details column (the overview's short lists). */
  compact?: boolean;
  emptyText: string;
}

export function auditTable(
  request: FastifyRequest,
  entries: readonly AuditEntry[],
  options: AuditTableOptions,
): Html {
  const t = request.t;
  if (entries.length === 0) return emptyState(options.emptyText);
  const system = t('admin.audit.system');
  return html`<div class="table-wrap"><table class="data">
  <thead><tr>
    <th scope="col">${t('admin.audit.time')}</th>
    <th scope="col">${t('admin.audit.event')}</th>
    ${options.compact ? '' : html`<th scope="col">${t('admin.audit.actor')}</th>`}
    <th scope="col">${t('admin.audit.subject')}</th>
    <th scope="col">${t('admin.audit.ip')}</th>
    ${options.compact ? '' : html`<th scope="col">${t('admin.audit.details')}</th>`}
  </tr></thead>
  <tbody>
    ${entries.map((entry) => {
      const attempted = typeof entry.details['email'] === 'string' ? entry.details['email'] : '—';
      return html`<tr>
      <td class="nowrap">${options.compact ? relativeTime(request, entry.createdAt) : dateTime(request, entry.createdAt)}</td>
      <td class="nowrap">${badge(eventLabel(request, entry.event), eventTone(entry.event))}${
        options.compact && typeof entry.details['channel'] === 'string'
          ? html`<span class="muted small">${entry.details['channel']}</span>`
          : ''
      }</td>
      ${options.compact ? '' : html`<td>${actorCell(request, entry, system)}</td>`}
      <td>${personCell(request, entry.subject, attempted)}</td>
      <td class="mono">${entry.ip ?? '—'}</td>
      ${options.compact ? '' : html`<td>${detailsCell(request, entry)}</td>`}
    </tr>`;
    })}
  </tbody>
</table></div>`;
}
