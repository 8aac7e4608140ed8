import type { DatabaseHandle } from '../db/connection.ts';
import { CachedLookup } from '../db/fast-path/kept-lookup.ts';
import type { Db } from '../db/schema.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import {
  deleteSessionRow,
  deleteSessionsIdleSince,
  deleteSessionsOfUser,
  findSessionRow,
  insertSessionRow,
  insertSessionRowIfAbsent,
  listSessionsOfUser,
  touchSessionRow,
  updateSessionRow,
} from './sessions.repository.ts';
import type { SessionRow } from './sessions.table.ts';

export interface SessionLifetimes {
  /** Minutes without activity after which the session is dead (SESSION_LIFETIME / ADMIN_SESSION_LIFETIME). */
  readonly idleMinutes: number;
  /** Minutes after creation after which it is dead regardless of activity. */
  readonly absoluteMinutes: number;
}

export type SessionData = Record<string, unknown>;

export interface Session {
  /** SHA-256 of the cookie value; the cookie value itself exists only in the browser. */
  readonly key: string;
  readonly guard: string;
  readonly userId: number | null;
  readonly data: SessionData;
  readonly createdAt: number;
  readonly lastActivity: number;
  readonly ip: string | null;
  readonly userAgent: string | null;
}

const MINUTE = 60_000;
/** last_activity is refreshed at most this often: reading a page must not mean writing a row. */
const TOUCH_INTERVAL = MINUTE;

/** A new cookie value: 256 bits from the CSPRNG, far beyond guessing. */
export function newSessionId(): string {
  return randomToken(32);
}

export function sessionKey(plainId: string): string {
  return sha256Hex(plainId);
}

/** Cookie values we could have issued: anything else is ignored without a database lookup. */
export function isSessionId(value: string | undefined): value is string {
  return value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value);
}

export type SessionReader = (key: string) => Promise<Session | undefined>;

/**
 * Sessions by key for every browser request, kept between requests until the database reports a
 * change (db/fast-path/kept-lookup.ts): a logout or a new session payload is a commit, seen at once. A kept
 * session is frozen through and through (its payload is parsed once and shared between requests).
 */
export function keptSessions(database: Pick<DatabaseHandle, 'db' | 'changes'>): SessionReader {
  const byKey = new CachedLookup(
    database.changes,
    async (key: string) => {
      const row = await findSessionRow(database.db, key);
      if (row === undefined) return undefined;
      return { session: deepFreeze(toSession(row)), size: row.data.length + (row.user_agent?.length ?? 0) };
    },
    // A guest can grow a session (the intended URL, a long user agent): large ones are read each
    // time, so 10,000 kept sessions stay a few megabytes.
    { keep: (found) => found === undefined || found.size <= 2048 },
  );
  return async (key) => (await byKey.get(key))?.session;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * The live session of `guard` behind a cookie value, or null when unknown, owned by another guard,
 * idle too long or past its absolute lifetime (dead rows are deleted on sight).
 */
export async function findSession(
  db: Db,
  guard: string,
  plainId: string,
  lifetimes: SessionLifetimes,
  now: number,
  read: SessionReader = async (key) => {
    const row = await findSessionRow(db, key);
    return row && toSession(row);
  },
): Promise<Session | null> {
  const session = await read(sessionKey(plainId));
  if (session === undefined || session.guard !== guard) return null;
  if (
    session.lastActivity + lifetimes.idleMinutes * MINUTE <= now ||
    session.createdAt + lifetimes.absoluteMinutes * MINUTE <= now
  ) {
    await deleteSessionRow(db, session.key);
    return null;
  }
  if (session.lastActivity <= now - TOUCH_INTERVAL) {
    // Awaited (once a minute per session at most): an unawaited write could land after a later
    // request's read, and a failed touch must not fail the page, only cost some idle time.
    await touchSessionRow(db, session.key, now, now - TOUCH_INTERVAL).catch(() => {});
  }
  return session;
}

export interface SessionMeta {
  readonly ip: string | null;
  readonly userAgent: string | null;
}

export async function createSession(
  db: Db,
  guard: string,
  plainId: string,
  userId: number | null,
  data: SessionData,
  meta: SessionMeta,
  now: number,
): Promise<Session> {
  const row = newRow(guard, plainId, userId, data, meta, now);
  await insertSessionRow(db, row);
  return toSession(row);
}

/**
 * Stores a guest's first data under the id its browser already holds (so the CSRF token of a form it
 * was shown stays valid). Null when that id is taken: by a concurrent request of the same browser
 * (two tabs bounced to the login at once), or by another guard's session. The caller then issues a
 * fresh id instead of failing or writing into a row that is not its own.
 */
export async function createGuestSession(
  db: Db,
  guard: string,
  plainId: string,
  data: SessionData,
  meta: SessionMeta,
  now: number,
): Promise<Session | null> {
  const row = newRow(guard, plainId, null, data, meta, now);
  return (await insertSessionRowIfAbsent(db, row)) ? toSession(row) : null;
}

function newRow(
  guard: string,
  plainId: string,
  userId: number | null,
  data: SessionData,
  meta: SessionMeta,
  now: number,
): SessionRow {
  return {
    id: sessionKey(plainId),
    guard,
    user_id: userId,
    data: JSON.stringify(data),
    ip_address: meta.ip?.slice(0, 45) ?? null,
    user_agent: meta.userAgent?.slice(0, 512) ?? null,
    created_at: now,
    last_activity: now,
  };
}

export function saveSessionData(db: Db, key: string, data: SessionData, now: number): Promise<void> {
  return updateSessionRow(db, key, { data: JSON.stringify(data), last_activity: now });
}

export function destroySession(db: Db, key: string): Promise<void> {
  return deleteSessionRow(db, key);
}

/** Ends every session of a user (password reset, disable, "log out everywhere"). */
export function destroyUserSessions(db: Db, userId: number, guard?: string): Promise<number> {
  return deleteSessionsOfUser(db, userId, guard);
}

export async function listUserSessions(db: Db, userId: number): Promise<Session[]> {
  return (await listSessionsOfUser(db, userId)).map(toSession);
}

export function pruneSessions(
  db: Db,
  guard: string,
  lifetimes: SessionLifetimes,
  now: number,
): Promise<number> {
  return deleteSessionsIdleSince(
    db,
    guard,
    now - lifetimes.idleMinutes * MINUTE,
    now - lifetimes.absoluteMinutes * MINUTE,
  );
}

function toSession(row: SessionRow): Session {
  let data: SessionData = {};
  try {
    const parsed: unknown = JSON.parse(row.data);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) data = parsed as SessionData;
  } catch {
    // A corrupt payload degrades to an empty session rather than an error page.
  }
  return {
    key: row.id,
    guard: row.guard,
    userId: row.user_id,
    data,
    createdAt: row.created_at,
    lastActivity: row.last_activity,
    ip: row.ip_address,
    userAgent: row.user_agent,
  };
}
