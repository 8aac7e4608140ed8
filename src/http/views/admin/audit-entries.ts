import type { AuditEntry, AuditPerson } from '../../../admin/audit-log.ts';
import { type Html, html } from '../../../lib/html.ts';
import { cell } from '../table.ts';
import type { ViewContext } from '../view-context.ts';
import { badge, emptyState, type Tone } from './components.ts';
import { dateTime, emailAddress, relativeTime } from './format.ts';

/** A translated name for an event; events added later without a translation show their raw name. */
export function eventLabel(viewContext: ViewContext, event: string): string {
  const key = `admin.events.${event.replace(/\./g, '_')}`;
  const label = viewContext.t(key);
  return label === key || label === '' ? event : label;
}

function eventTone(event: string): Tone {
  if (/failed|lockout|theft/.test(event)) return 'danger';
  if (event.startsWith('admin.')) return 'accent';
  if (event.endsWith('login.succeeded')) return 'ok';
  return 'muted';
}

function personCell(
  viewContext: ViewContext,
  person: AuditPerson | null,
  fallback: Html | string = '—',
): Html {
  if (person === null) return html`<span class="muted">${fallback}</span>`;
  if (person.name === null)
    return html`<span class="muted">#${person.id} (${viewContext.t('admin.audit.deleted_user')})</span>`;
  return html`<a href="/admin/users/${person.id}">${person.name}</a><br>${person.email === null ? '' : emailAddress(person.email, 'muted small')}`;
}

/**
 * A stored detail value as a person reads it: known words ("all", "web", "api") translated
 * (admin.values.<key>.<value>), anything else as stored.
 */
function detailValue(viewContext: ViewContext, key: string, value: unknown): string {
  const text = String(value);
  const id = `admin.values.${key}.${text}`;
  const label = /^[a-z_]+$/.test(text) ? viewContext.t(id) : id;
  return label === id || label === '' ? text : label;
}

/** A detail's translated name ("token_id" → "Token"); unknown keys show with spaces for underscores. */
function detailLabel(viewContext: ViewContext, key: string): string {
  const id = `admin.details.${key}`;
  const label = viewContext.t(id);
  return label === id || label === '' ? key.replace(/_/g, ' ') : label;
}

/** Events an administrator can cause from the command line (make:admin, admin:grant, admin:revoke). */
const COMMAND_LINE_EVENTS = /^admin\.(created|user\.panel_(granted|revoked))$/;

/**
 * The event's details as "name value" pairs (audit rows never hold secrets, so all are shown), minus
 * an e-mail that merely repeats the subject shown beside it.
 */
function detailsCell(viewContext: ViewContext, entry: AuditEntry): Html {
  const pairs = Object.entries(entry.details).filter(
    ([k, v]) => v !== null && typeof v !== 'object' && !(k === 'email' && v === entry.subject?.email),
  );
  if (pairs.length === 0) return html``;
  return html`<span class="details">${pairs.map(([k, v]) => html`<span><b>${detailLabel(viewContext, k)}</b> ${detailValue(viewContext, k, v)}</span>`)}</span>`;
}

/**
 * Who acted: "Same user" when people act on themselves; "Command line" only for the events the CLI
 * writes without an actor. A failed panel sign-in has no actor at all: nobody was signed in.
 */
function actorCell(viewContext: ViewContext, entry: AuditEntry, system: string): Html {
  if (entry.actor !== null && entry.actor.id === entry.subject?.id) {
    return html`<span class="muted">${viewContext.t('admin.audit.self')}</span>`;
  }
  return personCell(viewContext, entry.actor, COMMAND_LINE_EVENTS.test(entry.event) ? system : '—');
}

export interface AuditTableOptions {
  /** Compact: relative times, no actor or details column (the overview's short lists). */
  compact?: boolean;
  emptyText: string;
}

export function auditTable(
  viewContext: ViewContext,
  entries: readonly AuditEntry[],
  options: AuditTableOptions,
): Html {
  const t = viewContext.t;
  if (entries.length === 0) return emptyState(options.emptyText);
  const system = t('admin.audit.system');
  const label = {
    time: t('admin.audit.time'),
    event: t('admin.audit.event'),
    actor: t('admin.audit.actor'),
    subject: t('admin.audit.subject'),
    ip: t('admin.audit.ip'),
    details: t('admin.audit.details'),
  };
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
      ${cell(label.time, options.compact ? relativeTime(viewContext, entry.createdAt) : dateTime(viewContext, entry.createdAt), 'nowrap')}
      ${cell(
        label.event,
        html`${badge(eventLabel(viewContext, entry.event), eventTone(entry.event))}${
          options.compact && typeof entry.details['channel'] === 'string'
            ? html`<span class="muted small">${detailValue(viewContext, 'channel', entry.details['channel'])}</span>`
            : ''
        }`,
      )}
      ${options.compact ? '' : cell(label.actor, actorCell(viewContext, entry, system))}
      ${cell(label.subject, personCell(viewContext, entry.subject, attempted), 'wrap')}
      ${cell(label.ip, entry.ip ?? '—', 'mono wrap')}
      ${options.compact ? '' : cell(label.details, detailsCell(viewContext, entry))}
    </tr>`;
    })}
  </tbody>
</table></div>`;
}
