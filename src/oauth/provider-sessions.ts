import { randomBytes } from 'node:crypto';
import { authenticationMethods, type LoginMethod } from '../auth/login/login-method.ts';
import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { queueLogoutNotices, type SessionAuthorizations } from './logout-notices.ts';
import {
  destroyGrants,
  destroyModel,
  findModel,
  sessionsOfEndedBindings,
  updateSession,
  upsertModel,
} from './models.repository.ts';
import type { OauthModelRow } from './models.table.ts';

/** A browser's Gatehouse web session, as the provider's session must follow it. */
export interface GatehouseSession {
  /** The session row's key (SHA-256 of the cookie). */
  readonly key: string;
  readonly userId: number;
  /** How and when the person signed in; null when unknown (a session restored by remember-me). */
  readonly signIn: LoginMethod | null;
}

/** What oidc-provider keeps of a session (its Session model's payload, as the adapter stores it). */
interface StoredSession {
  uid?: string;
  accountId?: string;
  loginTs?: number;
  amr?: string[];
  authorizations?: SessionAuthorizations;
  [other: string]: unknown;
}

export interface ProviderSessionsDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** Seconds a provider session lives (it follows the Gatehouse one anyway). */
  readonly ttlSeconds: number;
}

/**
 * The provider's session follows the Gatehouse session (docs/guides/oidc-provider.md "Sessions"). Given
 * the provider session a browser presents and its Gatehouse session, the id it must present instead:
 *
 * - signed in to Gatehouse, presenting the same user's provider session: kept, moved to the current
 *   Gatehouse session (a login renews the Gatehouse id) and given its sign-in time and methods;
 * - signed in, presenting none, a guest's or another user's: a new provider session signed in as the
 *   Gatehouse user (so `prompt=none` works at once after a login at Gatehouse), the other user's ended;
 * - a guest at Gatehouse: a signed-in provider session is ended and not presented — it belongs to a
 *   Gatehouse session that is gone (a logout ends both at once; this catches one that merely expired).
 */
export async function followGatehouseSession(
  deps: ProviderSessionsDeps,
  presentedId: string | null,
  gatehouse: GatehouseSession | null,
): Promise<string | null> {
  const { db, clock } = deps;
  const now = clock.now();
  const row = presentedId === null ? undefined : await findModel(db, 'Session', sha256Hex(presentedId), now);
  const stored = row === undefined ? null : (JSON.parse(row.payload) as StoredSession);
  const accountId = gatehouse === null ? null : String(gatehouse.userId);
  if (
    row !== undefined &&
    stored !== null &&
    stored.accountId !== undefined &&
    stored.accountId === accountId
  ) {
    const signIn = signInOf(gatehouse);
    const fresher = signIn.loginTs !== undefined && signIn.loginTs > (stored.loginTs ?? 0);
    if (row.session_binding !== gatehouse!.key || fresher) {
      const payload = JSON.stringify(fresher ? { ...stored, ...signIn } : stored);
      await updateSession(db, row.id_hash, payload, gatehouse!.key);
    }
    return presentedId;
  }
  if (row !== undefined && stored?.accountId !== undefined)
    await endProviderSessions(db, [row], now, 'logout');
  if (gatehouse === null) return row !== undefined && stored?.accountId !== undefined ? null : presentedId;
  return startSession(deps, gatehouse);
}

/** A provider session signed in as the Gatehouse user, bound to their Gatehouse session; its id. */
async function startSession(deps: ProviderSessionsDeps, gatehouse: GatehouseSession): Promise<string> {
  const now = deps.clock.now();
  const id = randomBytes(32).toString('base64url');
  const uid = randomBytes(16).toString('base64url');
  const iat = Math.floor(now / 1000);
  const payload: StoredSession = {
    uid,
    kind: 'Session',
    accountId: String(gatehouse.userId),
    ...signInOf(gatehouse),
    iat,
    exp: iat + deps.ttlSeconds,
  };
  await upsertModel(deps.db, {
    kind: 'Session',
    id_hash: sha256Hex(id),
    payload: JSON.stringify(payload),
    grant_hash: null,
    uid_hash: sha256Hex(uid),
    user_code_hash: null,
    account_id: String(gatehouse.userId),
    client_id: null,
    session_binding: gatehouse.key,
    expires_at: now + deps.ttlSeconds * 1000,
    consumed_at: null,
    created_at: now,
  });
  return id;
}

/** The library's sign-in fields of a session from the Gatehouse sign-in facts (seconds, RFC 8176). */
function signInOf(gatehouse: GatehouseSession | null): Pick<StoredSession, 'loginTs' | 'amr'> {
  const method = gatehouse?.signIn;
  if (!method) return {};
  return { loginTs: Math.floor(method.at / 1000), amr: authenticationMethods(method) };
}

/**
 * How a Gatehouse session ended. `logout`: the person signed out; grants that outlive a logout
 * (offline_access, OpenID Connect Core §11) stay, as with the library's own logout. `revoked`: the
 * session was ended for them (the account page, the panel, a password change or reset, a disabled or
 * deleted account, remember-me theft) — every grant issued in it goes, offline ones too
 * (docs/guides/oidc-provider.md "Logout"; Authentik CVE-2025-29928 left them alive).
 */
export type SessionEnd = 'logout' | 'revoked';

/**
 * Ends provider sessions as the library's own logout does, and queues a back-channel logout notice
 * for each client they signed in (logout-notices.ts).
 */
export async function endProviderSessions(
  db: Db,
  rows: readonly OauthModelRow[],
  now: number,
  end: SessionEnd,
): Promise<void> {
  const grants: string[] = [];
  for (const row of rows) {
    const stored = JSON.parse(row.payload) as StoredSession;
    for (const authorization of Object.values(stored.authorizations ?? {})) {
      if (authorization?.grantId && (end === 'revoked' || !authorization.persistsLogout))
        grants.push(sha256Hex(authorization.grantId));
    }
    if (stored.accountId !== undefined)
      await queueLogoutNotices(db, stored.accountId, stored.authorizations ?? {}, now);
  }
  await destroyGrants(db, grants);
  for (const row of rows) await destroyModel(db, 'Session', row.id_hash);
}

/**
 * After Gatehouse sessions of a user ended (in the same transaction): the provider sessions that
 * followed them end too, with their back-channel logout notices. Every door that ends a Gatehouse
 * session calls this (docs/guides/oidc-provider.md "Logout").
 */
export async function endProviderSessionsOf(db: Db, userId: number, now: number, end: SessionEnd) {
  await endProviderSessions(db, await sessionsOfEndedBindings(db, String(userId)), now, end);
}
