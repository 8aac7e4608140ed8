import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/schema.ts';
import { MINUTE } from '../../lib/clock.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import type { User } from '../../users/user.ts';
import { joinedUser } from '../../users/users.repository.ts';
import {
  deleteDeadSessions,
  deleteSessionRow,
  deleteSessionsOfUser,
  findSessionWithUserRow,
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

/** last_activity is refreshed at most this often: reading a page must not mean writing a row. */
const TOUCH_INTERVAL = MINUTE;

/**
 * A random value of a session cookie's shape, 256 bits from the CSPRNG, that the server did not
 * issue (isIssuedSessionId says no): what a client can make up. Tests plant it; the server issues
 * issueSessionId().
 */
export function newSessionId(): string {
  return randomToken(32);
}

const ID_RANDOM_BYTES = 16;
const ID_TAG_BYTES = 16;

/**
 * A new session cookie value (43 base64url characters, as ever): 128 random bits from the CSPRNG —
 * far beyond guessing — followed by a 128-bit HMAC of them under APP_KEY. The tag lets the server
 * tell, without storage, an id it issued from one a client made up or an attacker planted in a
 * victim's browser (docs/security.md: never adopted), so a guest can hold an id, and a CSRF token made
 * from it, before any row exists.
 */
export function issueSessionId(appKey: Buffer): string {
  const random = randomBytes(ID_RANDOM_BYTES);
  return Buffer.concat([random, idTag(appKey, random)]).toString('base64url');
}

/** Whether `id` is one issueSessionId made under this APP_KEY (constant-time tag comparison). */
export function isIssuedSessionId(appKey: Buffer, id: string): boolean {
  const bytes = Buffer.from(id, 'base64url');
  if (bytes.length !== ID_RANDOM_BYTES + ID_TAG_BYTES) return false;
  return timingSafeEqual(bytes.subarray(ID_RANDOM_BYTES), idTag(appKey, bytes.subarray(0, ID_RANDOM_BYTES)));
}

function idTag(appKey: Buffer, random: Buffer): Buffer {
  return createHmac('sha256', appKey).update('session-id:').update(random).digest().subarray(0, ID_TAG_BYTES);
}

export function sessionKey(plainId: string): string {
  return sha256Hex(plainId);
}

/** Cookie values we could have issued: anything else is ignored without a database lookup. */
export function isSessionId(value: string | undefined): value is string {
  return value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value);
}

/**
 * When a session dies, stated once: `idleMinutes` after its last activity, or `absoluteMinutes` after
 * it began, whichever comes first. SQL that counts or prunes sessions (sessions.repository.ts) applies
 * the same limits, so the panel counts exactly the sessions the guard would let in.
 */
export interface SessionCutoffs {
  /** Live sessions were active after this moment… */
  readonly activeAfter: number;
  /** …and began after this one. */
  readonly createdAfter: number;
}

export function sessionCutoffs(lifetimes: SessionLifetimes, now: number): SessionCutoffs {
  return {
    activeAfter: now - lifetimes.idleMinutes * MINUTE,
    createdAfter: now - lifetimes.absoluteMinutes * MINUTE,
  };
}

export function isSessionLive(session: Pick<Session, 'lastActivity' | 'createdAt'>, cutoffs: SessionCutoffs) {
  return session.lastActivity > cutoffs.activeAfter && session.createdAt > cutoffs.createdAfter;
}

/** A session with its user (null for a guest, or when the user row is gone), read together. */
export interface SessionWithUser {
  readonly session: Session;
  readonly user: User | null;
}

/** A session by key with its user, null when there is none. services.ts wraps it in the auth cache. */
export type FindSessionWithUser = (key: string) => Promise<SessionWithUser | null>;

/** The plain lookup behind FindSessionWithUser. */
export function sessionWithUserFinder(db: Db): FindSessionWithUser {
  return async (key) => {
    const row = await findSessionWithUserRow(db, key);
    return row === undefined ? null : { session: toSession(row), user: joinedUser(row) };
  };
}

export interface SessionDeps {
  readonly db: Db;
  readonly findSessionWithUser: FindSessionWithUser;
}

/**
 * The live session of `guard` behind a cookie value, or null when unknown, owned by another guard,
 * idle too long or past its absolute lifetime (dead rows are deleted on sight).
 */
export async function validateSession(
  deps: SessionDeps,
  guard: string,
  plainId: string,
  lifetimes: SessionLifetimes,
  now: number,
): Promise<SessionWithUser | null> {
  const found = await deps.findSessionWithUser(sessionKey(plainId));
  if (found === null || found.session.guard !== guard) return null;
  const { session } = found;
  if (!isSessionLive(session, sessionCutoffs(lifetimes, now))) {
    await deleteSessionRow(deps.db, session.key);
    return null;
  }
  if (session.lastActivity <= now - TOUCH_INTERVAL) {
    // Awaited (once a minute per session at most): an unawaited write could land after a later
    // request's read, and a failed touch must not fail the page, only cost some idle time.
    await touchSessionRow(deps.db, session.key, now, now - TOUCH_INTERVAL).catch(() => {});
  }
  return found;
}

export interface NewSession {
  readonly guard: string;
  readonly plainId: string;
  readonly userId: number | null;
  readonly data: SessionData;
  /** The browser's address and user agent, shown in the panel's session list. */
  readonly ip: string | null;
  readonly userAgent: string | null;
}

export async function createSession(db: Db, session: NewSession, now: number): Promise<Session> {
  const row = newRow(session, now);
  await insertSessionRow(db, row);
  return toSession(row);
}

/**
 * Stores a guest's first data under the id its browser already holds (so the CSRF token of a form it
 * was shown stays valid). Null when that id is taken: by a concurrent request of the same browser
 * (two tabs bounced to the login at once), or by another guard's session. The caller then issues a
 * fresh id instead of failing or writing into a row that is not its own.
 */
export async function createGuestSession(db: Db, session: NewSession, now: number): Promise<Session | null> {
  const row = newRow(session, now);
  return (await insertSessionRowIfAbsent(db, row)) ? toSession(row) : null;
}

function newRow(session: NewSession, now: number): SessionRow {
  return {
    id: sessionKey(session.plainId),
    guard: session.guard,
    user_id: session.userId,
    data: JSON.stringify(session.data),
    ip_address: session.ip?.slice(0, 45) ?? null,
    user_agent: session.userAgent?.slice(0, 512) ?? null,
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

/** The user's sessions of `guard` that are still live, most recently active first. */
export async function listLiveSessions(
  db: Db,
  userId: number,
  guard: string,
  lifetimes: SessionLifetimes,
  now: number,
): Promise<Session[]> {
  const cutoffs = sessionCutoffs(lifetimes, now);
  return (await listSessionsOfUser(db, userId))
    .map(toSession)
    .filter((session) => session.guard === guard && isSessionLive(session, cutoffs));
}

export function pruneSessions(
  db: Db,
  guard: string,
  lifetimes: SessionLifetimes,
  now: number,
): Promise<number> {
  return deleteDeadSessions(db, guard, sessionCutoffs(lifetimes, now));
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
