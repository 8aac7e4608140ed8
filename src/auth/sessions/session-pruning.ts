import type { Db } from '../../db/schema.ts';
import { type AuthConfig, sessionGuards } from '../guards/guards.ts';
import { pruneRememberTokens } from '../remember-me/remember-me.ts';
import { pruneSessions, type SessionLifetimes } from './sessions.ts';

/** Each session guard's lifetimes: its own idle minutes, SESSION_ABSOLUTE_LIFETIME for all. */
export function sessionLifetimes(
  auth: AuthConfig,
  absoluteMinutes: number,
): ReadonlyMap<string, SessionLifetimes> {
  return new Map(
    [...sessionGuards(auth)].map(([guard, config]) => [
      guard,
      { idleMinutes: config.idleMinutes, absoluteMinutes },
    ]),
  );
}

export interface PruneResult {
  readonly sessions: number;
  readonly rememberTokens: number;
}

/**
 * Deletes sessions past their idle or absolute lifetime and expired remember-me tokens. Both are
 * refused on sight anyway; pruning keeps the tables (and what a stolen backup holds) small.
 */
export async function pruneExpiredSessions(
  db: Db,
  lifetimes: ReadonlyMap<string, SessionLifetimes>,
  now: number,
): Promise<PruneResult> {
  let sessions = 0;
  for (const [guard, limits] of lifetimes) sessions += await pruneSessions(db, guard, limits, now);
  return { sessions, rememberTokens: await pruneRememberTokens(db, now) };
}
