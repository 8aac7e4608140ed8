import { countLiveSessions } from '../auth/sessions/sessions.repository.ts';
import { type SessionLifetimes, sessionCutoffs } from '../auth/sessions/sessions.ts';
import { countLiveTokens } from '../auth/tokens/access-tokens.repository.ts';
import { tokenCutoffs } from '../auth/tokens/access-tokens.ts';
import type { Db } from '../db/schema.ts';
import { DAY } from '../lib/clock.ts';
import { type AuditEntry, countAuditEvents, listAuditEntries } from './audit-log.ts';
import { countUsersByState } from './panel.repository.ts';

export interface Overview {
  readonly users: number;
  readonly verifiedUsers: number;
  readonly disabledUsers: number;
  readonly panelUsers: number;
  readonly activeSessions: number;
  readonly liveTokens: number;
  readonly signIns24h: number;
  readonly failures24h: number;
  /** The latest sign-ins and failed sign-ins, newest first. */
  readonly recentSignIns: readonly AuditEntry[];
  readonly recentFailures: readonly AuditEntry[];
}

export interface OverviewSettings {
  /** TOKEN_EXPIRATION, minutes (null: never). */
  readonly tokenExpirationMinutes: number | null;
  /** The lifetimes of each session guard: a session counts as active while within them. */
  readonly sessionLifetimes: ReadonlyMap<string, SessionLifetimes>;
}

/**
 * The panel home's numbers. Sessions and tokens are counted by the rules the guards apply (idle and
 * absolute lifetimes, expiry, owner not disabled), so the numbers mean "would authenticate now".
 */
export async function loadOverview(db: Db, settings: OverviewSettings, now: number): Promise<Overview> {
  const sessionLimits = new Map(
    [...settings.sessionLifetimes].map(([guard, lifetimes]) => [guard, sessionCutoffs(lifetimes, now)]),
  );
  const [users, activeSessions, liveTokens] = await Promise.all([
    countUsersByState(db),
    countLiveSessions(db, sessionLimits),
    countLiveTokens(db, tokenCutoffs(settings.tokenExpirationMinutes, now)),
  ]);
  const since = now - DAY;
  const [signIns24h, failures24h, recentSignIns, recentFailures] = await Promise.all([
    countAuditEvents(db, 'sign_ins', since),
    countAuditEvents(db, 'failures', since),
    listAuditEntries(db, { group: 'sign_ins', limit: 8, offset: 0 }),
    listAuditEntries(db, { group: 'failures', limit: 8, offset: 0 }),
  ]);
  return {
    users: users.all,
    verifiedUsers: users.verified,
    disabledUsers: users.disabled,
    panelUsers: users.panel,
    activeSessions,
    liveTokens,
    signIns24h,
    failures24h,
    recentSignIns: recentSignIns.entries,
    recentFailures: recentFailures.entries,
  };
}
