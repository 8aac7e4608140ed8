import type { Db } from '../db/schema.ts';
import type { AuthConfig } from './guards.ts';
import { pruneRememberTokens } from './remember-me.ts';
import { pruneSessions, type SessionLifetimes } from './sessions.ts';

/** Each session guard of the auth config with its lifetimes (web: SESSION_LIFETIME, admin: its own). */
export function sessionGuardLifetimes(
  auth: AuthConfig,
  absoluteMinutes: number,
): { guard: string; lifetimes: SessionLifetimes }[] {
  return Object.entries(auth.guards)
    .filter(([, config]) => config.driver === 'session')
    .map(([guard, config]) => ({
      guard,
      lifetimes: { idleMinutes: Number(config['idleMinutes']), absoluteMinutes },
    }));
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
  guards: readonly { guard: string; lifetimes: SessionLifetimes }[],
  now: number,
): Promise<PruneResult> {
  let sessions = 0;
  for (const { guard, lifetimes } of guards) sessions += await pruneSessions(db, guard, lifetimes, now);
  return { sessions, rememberTokens: await pruneRememberTokens(db, now) };
}
