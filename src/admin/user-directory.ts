import { type AccessToken, type AccessTokenSettings, listAccessTokens } from '../auth/access-tokens.ts';
import { listUserSessions, type Session, type SessionLifetimes } from '../auth/sessions.ts';
import type { Db } from '../db/schema.ts';
import { toUser, type User } from '../users/user.ts';
import { findUserById } from '../users/users.repository.ts';
import { type AuditEntry, listAuditEntries } from './audit-log.ts';
import { searchUserRows } from './panel.repository.ts';

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  /** 1-based; clamped to the last page that exists. */
  readonly page: number;
  readonly pages: number;
  readonly pageSize: number;
}

/** A requested page number from a query string: anything odd is page 1. */
export function pageNumber(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return Math.max(1, n);
}

export function toPage<T>(items: readonly T[], total: number, page: number, pageSize: number): Page<T> {
  return { items, total, page, pages: Math.max(1, Math.ceil(total / pageSize)), pageSize };
}

export interface UserListQuery {
  readonly search: string;
  readonly newestFirst: boolean;
  readonly page: number;
}

export async function searchUsers(db: Db, query: UserListQuery, pageSize: number): Promise<Page<User>> {
  const run = (page: number) =>
    searchUserRows(db, {
      query: query.search.slice(0, 255),
      newestFirst: query.newestFirst,
      limit: pageSize,
      offset: (page - 1) * pageSize,
    });
  let page = query.page;
  let { rows, total } = await run(page);
  if (rows.length === 0 && total > 0 && page > 1) {
    // Past the end (an old link after deletions, a hand-edited URL): show the last page instead.
    page = Math.ceil(total / pageSize);
    ({ rows, total } = await run(page));
  }
  return toPage(rows.map(toUser), total, page, pageSize);
}

export interface UserDetail {
  readonly user: User;
  readonly tokens: readonly AccessToken[];
  /** Web sessions only: admin sessions belong to the panel and are not ended from here. */
  readonly sessions: readonly Session[];
  readonly activity: readonly AuditEntry[];
  readonly activityTotal: number;
}

export interface UserDetailSettings {
  readonly tokens: AccessTokenSettings;
  /** The web guard's lifetimes: rows past them are dead (deleted on sight) and not listed. */
  readonly webSessions: SessionLifetimes;
}

const MINUTE = 60_000;

export async function loadUserDetail(
  db: Db,
  settings: UserDetailSettings,
  userId: number,
  now: number,
): Promise<UserDetail | null> {
  const row = await findUserById(db, userId);
  if (row === undefined) return null;
  const [tokenList, sessions, activity] = await Promise.all([
    listAccessTokens(db, settings.tokens, userId),
    listUserSessions(db, userId),
    listAuditEntries(db, { userId, limit: 10, offset: 0 }),
  ]);
  return {
    user: toUser(row),
    tokens: tokenList,
    sessions: sessions.filter(
      (s) =>
        s.guard === 'web' &&
        s.lastActivity + settings.webSessions.idleMinutes * MINUTE > now &&
        s.createdAt + settings.webSessions.absoluteMinutes * MINUTE > now,
    ),
    activity: activity.entries,
    activityTotal: activity.total,
  };
}
