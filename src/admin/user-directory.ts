import { listLiveSessions, type Session, type SessionLifetimes } from '../auth/sessions/sessions.ts';
import {
  type AccessToken,
  type AccessTokenSettings,
  listAccessTokens,
} from '../auth/tokens/access-tokens.ts';
import type { Db } from '../db/schema.ts';
import { type IdentitySummary, listIdentities } from '../identities/identities.repository.ts';
import { type ConnectedApp, connectedAppsOf } from '../oauth/consents.ts';
import { listPasskeys, type PasskeySummary } from '../passkeys/passkeys.repository.ts';
import { toUser, type User } from '../users/user.ts';
import { findUserById } from '../users/users.repository.ts';
import { type AuditEntry, listAuditEntries } from './audit-log.ts';
import { fetchPage, type Page } from './paging.ts';
import { searchUserRows, type UserFilter } from './panel.repository.ts';

export interface UserListQuery {
  readonly search: string;
  readonly filter: UserFilter;
  readonly newestFirst: boolean;
  readonly page: number;
}

/** A user in the panel's list, with their second factors (docs/guides/admin-panel.md). */
export interface UserListItem {
  readonly user: User;
  readonly twoFactor: boolean;
  readonly passkeys: number;
}

export async function searchUsers(
  db: Db,
  query: UserListQuery,
  pageSize: number,
): Promise<Page<UserListItem>> {
  const search = { query: query.search.slice(0, 255), filter: query.filter, newestFirst: query.newestFirst };
  return fetchPage(
    async (limit, offset) => {
      const { rows, total } = await searchUserRows(db, { ...search, limit, offset });
      const items = rows.map((row) => ({
        user: toUser(row),
        // SQLite and MySQL answer EXISTS with 0/1, PostgreSQL with a boolean; counts may come as strings.
        twoFactor: row.two_factor === true || Number(row.two_factor) === 1,
        passkeys: Number(row.passkeys ?? 0),
      }));
      return { items, total };
    },
    query.page,
    pageSize,
  );
}

export interface UserDetail {
  readonly user: User;
  readonly tokens: readonly AccessToken[];
  /** Web sessions only: admin sessions belong to the panel and are not ended from here. */
  readonly sessions: readonly Session[];
  readonly activity: readonly AuditEntry[];
  readonly activityTotal: number;
  /** Accounts at other providers linked for signing in (docs/guides/login-providers.md). */
  readonly linkedAccounts: readonly IdentitySummary[];
  /** The user's passkeys: name, created, last used, never key material (docs/guides/passkeys.md). */
  readonly passkeys: readonly PasskeySummary[];
  /** The OpenID Connect clients the user allowed (docs/guides/oidc-provider.md "Connected apps"). */
  readonly connectedApps: readonly ConnectedApp[];
}

export interface UserDetailSettings {
  readonly tokens: AccessTokenSettings;
  /** The web guard's lifetimes: rows past them are dead (deleted on sight) and not listed. */
  readonly webSessions: SessionLifetimes;
}

export async function loadUserDetail(
  db: Db,
  settings: UserDetailSettings,
  userId: number,
  now: number,
): Promise<UserDetail | null> {
  const row = await findUserById(db, userId);
  if (row === undefined) return null;
  const [tokenList, sessions, activity, linkedAccounts, passkeys, connectedApps] = await Promise.all([
    listAccessTokens(db, settings.tokens, userId),
    listLiveSessions(db, userId, 'web', settings.webSessions, now),
    listAuditEntries(db, { userId, limit: 10, offset: 0 }),
    listIdentities(db, userId),
    listPasskeys(db, userId),
    connectedAppsOf(db, userId),
  ]);
  return {
    user: toUser(row),
    tokens: tokenList,
    sessions,
    activity: activity.entries,
    activityTotal: activity.total,
    linkedAccounts,
    passkeys,
    connectedApps,
  };
}
