import type { AccessTokenSettings } from '../auth/access-tokens.ts';
import type { Db } from '../db/schema.ts';
import { type AuditEntry, countAuditEvents, listAuditEntries } from './audit-log.ts';

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
  readonly tokens: AccessTokenSettings;
  /** Idle lifetime (minutes) per session guard: a session counts as active while within it. */
  readonly idleMinutes: Readonly<Record<string, number>>;
  readonly absoluteMinutes: number;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * The panel home's numbers. Sessions and tokens are counted by the rules the guards apply (idle and
 * absolute lifetimes, expiry, owner not disabled), so the numbers mean "would authenticate now".
 */
export async function loadOverview(db: Db, settings: OverviewSettings, now: number): Promise<Overview> {
  const count = (n: { n: number | string | bigint } | undefined) => Number(n?.n ?? 0);
  const users = db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n'));
  const [all, verified, disabled, panel, sessions, tokens] = await Promise.all([
    users.executeTakeFirst(),
    users.where('email_verified_at', 'is not', null).executeTakeFirst(),
    users.where('disabled_at', 'is not', null).executeTakeFirst(),
    users.where('can_access_panel', '=', 1).executeTakeFirst(),
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('users.disabled_at', 'is', null)
      .where('sessions.created_at', '>', now - settings.absoluteMinutes * MINUTE)
      .where((eb) =>
        eb.or(
          Object.entries(settings.idleMinutes).map(([guard, idle]) =>
            eb.and([
              eb('sessions.guard', '=', guard),
              eb('sessions.last_activity', '>', now - idle * MINUTE),
            ]),
          ),
        ),
      )
      .executeTakeFirst(),
    liveTokenCount(db, settings.tokens, now),
  ]);
  const since = now - DAY;
  const [signIns24h, failures24h, recentSignIns, recentFailures] = await Promise.all([
    countAuditEvents(db, 'sign_ins', since),
    countAuditEvents(db, 'failures', since),
    listAuditEntries(db, { group: 'sign_ins', limit: 8, offset: 0 }),
    listAuditEntries(db, { group: 'failures', limit: 8, offset: 0 }),
  ]);
  return {
    users: count(all),
    verifiedUsers: count(verified),
    disabledUsers: count(disabled),
    panelUsers: count(panel),
    activeSessions: count(sessions),
    liveTokens: tokens,
    signIns24h,
    failures24h,
    recentSignIns: recentSignIns.entries,
    recentFailures: recentFailures.entries,
  };
}

/** Tokens that would authenticate now: not past their own expiry nor TOKEN_EXPIRATION, owner not disabled. */
async function liveTokenCount(db: Db, settings: AccessTokenSettings, now: number): Promise<number> {
  let query = db
    .selectFrom('personal_access_tokens')
    .innerJoin('users', 'users.id', 'personal_access_tokens.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('users.disabled_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('personal_access_tokens.expires_at', 'is', null),
        eb('personal_access_tokens.expires_at', '>', now),
      ]),
    );
  if (settings.expirationMinutes !== null) {
    query = query.where('personal_access_tokens.created_at', '>', now - settings.expirationMinutes * MINUTE);
  }
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}
