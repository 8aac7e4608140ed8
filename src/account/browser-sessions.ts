import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { REMEMBER_SELECTOR } from '../auth/remember-me/remember-me.ts';
import {
  deleteOtherRememberTokens,
  deleteRememberTokenOfUser,
  listRememberTokensOfUser,
} from '../auth/remember-me/remember-tokens.repository.ts';
import { deleteOtherSessionsOfUser, deleteSessionOfUser } from '../auth/sessions/sessions.repository.ts';
import { listLiveSessions, type Session, type SessionLifetimes } from '../auth/sessions/sessions.ts';
import type { Database, Db } from '../db/schema.ts';
import { hmacSha256Hex } from '../lib/crypto.ts';
import { endProviderSessionsOf } from '../oauth/provider-sessions.ts';
import type { CheckPassword, PasswordCheck, PasswordCheckContext } from './password-check.ts';
import { describeUserAgent } from './user-agent.ts';

/** One browser signed in to the account (docs/guides/account.md GET /user/sessions). */
export interface BrowserSession {
  /** Opaque: an HMAC of the row's key, never the cookie or its hash, so the list hands out no credential. */
  readonly id: string;
  readonly ipAddress: string | null;
  readonly userAgent: string | null;
  readonly browser: string | null;
  readonly platform: string | null;
  /** When this browser signed in: its session began (a login always starts a new one), or its remember-me token was issued. */
  readonly signedInAt: number;
  readonly lastActiveAt: number;
  readonly isCurrent: boolean;
  /** A remember-me cookie can sign this browser in again (also when its session has ended). */
  readonly remembered: boolean;
}

export interface BrowserSessionDeps {
  readonly db: Kysely<Database>;
  readonly appKey: Buffer;
  readonly lifetimes: SessionLifetimes;
}

/** This browser: its session row's key and the remember-me selector it holds, if any. */
export interface CurrentBrowser {
  readonly key: string | null;
  readonly rememberSelector: string | null;
}

interface Entry extends BrowserSession {
  /** Deletes what keeps this browser signed in; how many rows went. */
  readonly end: (db: Db, userId: number) => Promise<number>;
}

const GUARD = 'web';

/**
 * Every live web session of the user, plus every remembered browser whose session has ended
 * (Jetstream #277 lists only sessions, so a remembered laptop stays signed in without being shown).
 */
async function entries(deps: BrowserSessionDeps, userId: number, current: CurrentBrowser, now: number) {
  const opaque = (kind: string, key: string) =>
    hmacSha256Hex(deps.appKey, `browser-session|${kind}|${key}`).slice(0, 40);
  const sessions = await listLiveSessions(deps.db, userId, GUARD, deps.lifetimes, now);
  const tokens = await listRememberTokensOfUser(deps.db, userId, GUARD, now);
  const tokenSelectors = new Set(tokens.map((token) => token.selector));
  const selectorOf = (session: Session) => {
    const selector = session.data[REMEMBER_SELECTOR];
    return typeof selector === 'string' && tokenSelectors.has(selector) ? selector : null;
  };
  const covered = new Set<string>();
  const list: Entry[] = sessions.map((session) => {
    const selector = selectorOf(session);
    if (selector !== null) covered.add(selector);
    return {
      id: opaque('s', session.key),
      ipAddress: session.ip,
      userAgent: session.userAgent,
      ...describeUserAgent(session.userAgent),
      signedInAt: session.createdAt,
      lastActiveAt: session.lastActivity,
      isCurrent: session.key === current.key,
      remembered: selector !== null,
      end: async (db, user) =>
        ((await deleteSessionOfUser(db, user, GUARD, session.key)) ? 1 : 0) +
        (selector === null ? 0 : await deleteRememberTokenOfUser(db, user, selector)),
    };
  });
  for (const token of tokens) {
    if (covered.has(token.selector)) continue;
    list.push({
      id: opaque('r', token.selector),
      ipAddress: token.ip_address,
      userAgent: token.user_agent,
      ...describeUserAgent(token.user_agent),
      signedInAt: token.created_at,
      lastActiveAt: token.last_used_at ?? token.created_at,
      isCurrent: token.selector === current.rememberSelector,
      remembered: true,
      end: (db, user) => deleteRememberTokenOfUser(db, user, token.selector),
    });
  }
  return list.sort((a, b) => b.lastActiveAt - a.lastActiveAt);
}

export async function listBrowserSessions(
  deps: BrowserSessionDeps,
  userId: number,
  current: CurrentBrowser,
  now: number,
): Promise<BrowserSession[]> {
  return (await entries(deps, userId, current, now)).map(({ end: _end, ...session }) => session);
}

/**
 * Ends one browser by its opaque id: its session and its remember-me token (or the token alone).
 * An id that is not one of the user's browsers now is `not_found` (404): another user's id never is.
 */
export async function endBrowserSession(
  deps: BrowserSessionDeps,
  userId: number,
  id: string,
  current: CurrentBrowser,
  audit: AuditContext,
): Promise<'ended' | 'not_found'> {
  const entry = (await entries(deps, userId, current, audit.now)).find((e) => e.id === id);
  if (entry === undefined) return 'not_found';
  return deps.db.transaction().execute(async (trx) => {
    if ((await entry.end(trx, userId)) === 0) return 'not_found';
    await endProviderSessionsOf(trx, userId, audit.now, 'revoked');
    await recordAudit(trx, 'user.session_ended', audit, userId, {
      ip: entry.ipAddress,
      browser: entry.browser,
      current: entry.isCurrent,
    });
    return 'ended';
  });
}

/**
 * "Log out other browser sessions" after the password (counted like a login attempt): every other
 * session of the user (web and panel) and every remember-me token but this browser's end together.
 */
export async function endOtherBrowserSessions(
  deps: BrowserSessionDeps & {
    readonly checkPassword: CheckPassword;
  },
  userId: number,
  password: string,
  current: CurrentBrowser,
  audit: PasswordCheckContext,
): Promise<PasswordCheck> {
  const check = await deps.checkPassword(userId, password, audit);
  if (check.status !== 'ok') return check;
  await deps.db.transaction().execute(async (trx) => {
    const sessions = current.key === null ? 0 : await deleteOtherSessionsOfUser(trx, userId, current.key);
    const remembered = await deleteOtherRememberTokens(trx, userId, current.rememberSelector);
    await endProviderSessionsOf(trx, userId, audit.now, 'revoked');
    await recordAudit(trx, 'user.other_sessions_ended', audit, userId, {
      sessions_ended: sessions,
      remember_tokens_revoked: remembered,
    });
  });
  return check;
}
