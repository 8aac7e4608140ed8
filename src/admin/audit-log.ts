import type { AuditEvent } from '../audit/audit.ts';
import type { Db } from '../db/schema.ts';
import { isEmail } from '../lib/validation.ts';
import { normaliseEmail, toUser, type User } from '../users/user.ts';
import { findUserByEmail, findUserById } from '../users/users.repository.ts';
import { fetchPage, type Page, toPage } from './paging.ts';

/** Event groups offered as a filter on the audit page; the names are the audit_log.event values. */
export const AUDIT_GROUPS = {
  sign_ins: ['login.succeeded', 'admin.login.succeeded'],
  failures: [
    'login.failed',
    'admin.login.failed',
    'login.lockout',
    'admin.login.lockout',
    'remember.theft_suspected',
  ],
  passwords: ['password.reset_requested', 'password.reset'],
  tokens: ['token.issued', 'token.revoked', 'admin.token.revoked'],
  admin: [
    'admin.created',
    'admin.user.verified',
    'admin.user.disabled',
    'admin.user.enabled',
    'admin.user.panel_granted',
    'admin.user.panel_revoked',
    'admin.token.revoked',
    'admin.session.ended',
    'admin.passkey.deleted',
    'admin.import.laravel',
  ],
  organizations: [
    'org.created',
    'org.updated',
    'org.deleted',
    'org.invitation.sent',
    'org.invitation.accepted',
    'org.invitation.cancelled',
    'org.member.removed',
    'org.member.role_changed',
  ],
} as const satisfies Record<string, readonly AuditEvent[]>;

export type AuditGroup = keyof typeof AUDIT_GROUPS;

export function isAuditGroup(value: unknown): value is AuditGroup {
  return typeof value === 'string' && Object.hasOwn(AUDIT_GROUPS, value);
}

export interface AuditPerson {
  readonly id: number;
  /** Null when the user has since been deleted: the trail outlives the users it mentions. */
  readonly name: string | null;
  readonly email: string | null;
}

export interface AuditEntry {
  readonly id: number;
  readonly event: string;
  readonly actor: AuditPerson | null;
  readonly subject: AuditPerson | null;
  readonly ip: string | null;
  readonly details: Record<string, unknown>;
  readonly createdAt: number;
}

export interface AuditQuery {
  /** Entries where this user acted or was acted upon. */
  readonly userId?: number;
  readonly group?: AuditGroup;
  /** Only entries at or after this time. */
  readonly since?: number;
  readonly limit: number;
  readonly offset: number;
}

/** Newest first, with actor and subject names joined in; `total` is for pagination. */
export async function listAuditEntries(
  db: Db,
  query: AuditQuery,
): Promise<{ entries: AuditEntry[]; total: number }> {
  let base = db
    .selectFrom('audit_log')
    .leftJoin('users as actor', 'actor.id', 'audit_log.actor_id')
    .leftJoin('users as subject', 'subject.id', 'audit_log.subject_id');
  if (query.userId !== undefined) {
    const id = query.userId;
    base = base.where((eb) =>
      eb.or([eb('audit_log.actor_id', '=', id), eb('audit_log.subject_id', '=', id)]),
    );
  }
  if (query.group !== undefined) base = base.where('audit_log.event', 'in', [...AUDIT_GROUPS[query.group]]);
  if (query.since !== undefined) base = base.where('audit_log.created_at', '>=', query.since);
  const [rows, count] = await Promise.all([
    base
      .select([
        'audit_log.id',
        'audit_log.event',
        'audit_log.actor_id',
        'audit_log.subject_id',
        'audit_log.ip_address',
        'audit_log.details',
        'audit_log.created_at',
        'actor.name as actor_name',
        'actor.email as actor_email',
        'subject.name as subject_name',
        'subject.email as subject_email',
      ])
      .orderBy('audit_log.id', 'desc')
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const entries = rows.map((row) => ({
    id: row.id,
    event: row.event,
    actor: person(row.actor_id, row.actor_name, row.actor_email),
    subject: person(row.subject_id, row.subject_name, row.subject_email),
    ip: row.ip_address,
    details: parseDetails(row.details),
    createdAt: row.created_at,
  }));
  return { entries, total: Number(count.n) };
}

export interface AuditBrowseQuery {
  /** What was typed in the user box: an id ("42" or "#42") or an e-mail address; '' for everyone. */
  readonly userInput: string;
  readonly group: AuditGroup | null;
  readonly page: number;
}

/**
 * The audit page: entries newest first, of the user the box names (where they acted or were acted
 * upon) and of a group of events. A box naming nobody shows no entries, never everyone's.
 */
export async function browseAuditLog(
  db: Db,
  query: AuditBrowseQuery,
  pageSize: number,
): Promise<{ user: User | null; page: Page<AuditEntry> }> {
  const user = await findNamedUser(db, query.userInput);
  if (query.userInput !== '' && user === null) return { user, page: toPage([], 0, query.page, pageSize) };
  const page = await fetchPage(
    async (limit, offset) => {
      const { entries, total } = await listAuditEntries(db, {
        ...(user ? { userId: user.id } : {}),
        ...(query.group ? { group: query.group } : {}),
        limit,
        offset,
      });
      return { items: entries, total };
    },
    query.page,
    pageSize,
  );
  return { user, page };
}

async function findNamedUser(db: Db, input: string): Promise<User | null> {
  const id = /^#?(\d{1,9})$/.exec(input)?.[1];
  const row = id
    ? await findUserById(db, Number(id))
    : isEmail(input)
      ? await findUserByEmail(db, normaliseEmail(input))
      : undefined;
  return row ? toUser(row) : null;
}

/** How many entries of a group since a time (the overview's "sign-ins in the last 24 hours"). */
export async function countAuditEvents(db: Db, group: AuditGroup, since: number): Promise<number> {
  const row = await db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('event', 'in', [...AUDIT_GROUPS[group]])
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function person(id: number | null, name: string | null, email: string | null): AuditPerson | null {
  return id === null ? null : { id, name, email };
}

function parseDetails(raw: string | null): Record<string, unknown> {
  if (raw === null) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
