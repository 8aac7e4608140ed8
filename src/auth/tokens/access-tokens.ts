import { type AuditContext, recordAudit } from '../../audit/audit.ts';
import type { Config } from '../../config.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import type { Db } from '../../db/schema.ts';
import { type Clock, MINUTE } from '../../lib/clock.ts';
import { sha256Hex, sha256Matches } from '../../lib/crypto.ts';
import type { User } from '../../users/user.ts';
import { joinedUser } from '../../users/users.repository.ts';
import { parseAbilities } from './abilities.ts';
import {
  deleteExpiredTokens,
  deleteTokens,
  findTokenByHash,
  findTokenWithUserById,
  insertToken,
  listTokensOfUser,
  touchToken,
} from './access-tokens.repository.ts';
import type { AccessTokenRow } from './access-tokens.table.ts';
import { generateSecret, parseLegacyToken, parsePlainToken } from './token-format.ts';

export interface AccessTokenSettings {
  /** TOKEN_EXPIRATION: minutes from creation, null = never. */
  readonly expirationMinutes: number | null;
  readonly prefix: string;
}

export function accessTokenSettings(config: Pick<Config, 'tokenExpirationMinutes' | 'tokenPrefix'>) {
  return { expirationMinutes: config.tokenExpirationMinutes, prefix: config.tokenPrefix };
}

/**
 * When an API token dies, stated once (Sanctum's rule): at the earlier of its own expiry (`expires_in`
 * when it was issued) and its creation + TOKEN_EXPIRATION minutes. The guard compares `expiresAt` with
 * the time; SQL that counts or prunes tokens (access-tokens.repository.ts) applies the same two limits
 * through tokenCutoffs(), so the panel counts exactly the tokens the guard would let in.
 */
export function tokenExpiresAt(
  ownExpiresAt: number | null,
  createdAt: number,
  expirationMinutes: number | null,
): number | null {
  const byConfig = expirationMinutes === null ? null : createdAt + expirationMinutes * MINUTE;
  if (ownExpiresAt === null) return byConfig;
  return byConfig === null ? ownExpiresAt : Math.min(byConfig, ownExpiresAt);
}

export function isTokenLive(expiresAt: number | null, now: number): boolean {
  return expiresAt === null || expiresAt > now;
}

/** The rule as limits on stored columns: live ⇔ (expires_at is null or > now) and created_at > createdAfter. */
export interface TokenCutoffs {
  readonly now: number;
  /** null: TOKEN_EXPIRATION is off, creation time does not matter. */
  readonly createdAfter: number | null;
}

export function tokenCutoffs(expirationMinutes: number | null, now: number): TokenCutoffs {
  return { now, createdAfter: expirationMinutes === null ? null : now - expirationMinutes * MINUTE };
}

export interface AccessToken {
  readonly id: number;
  readonly userId: number;
  readonly name: string;
  readonly abilities: readonly string[];
  readonly lastUsedAt: number | null;
  /** The effective expiry (token-lifetime.ts); null = never. */
  readonly expiresAt: number | null;
  readonly createdAt: number;
}

/**
 * What the owner may see of a token, in the one shape the API's token list, the account page and the
 * data export all give (docs/guides/api-tokens.md, docs/guides/account.md): never its hash. `iso` writes the timestamps.
 */
export function tokenFacts(token: AccessToken, iso: (ms: number | null) => string | null) {
  return {
    id: token.id,
    name: token.name,
    abilities: token.abilities,
    last_used_at: iso(token.lastUsedAt),
    expires_at: iso(token.expiresAt),
    created_at: iso(token.createdAt),
  };
}

/** A token as the guard checks it: the public part and the SHA-256 (hex) of its secret. */
export interface StoredToken {
  readonly token: AccessToken;
  readonly secretHash: string;
  /** Imported from Laravel: Sanctum's older plaintext forms are accepted for it (token-format.ts). */
  readonly imported: boolean;
}

/** A token with its user (null when the user row is gone), read together: one query per bearer check. */
export interface StoredTokenWithUser extends StoredToken {
  readonly user: User | null;
}

/** A token by id with its user, null when there is none. services.ts wraps it in the auth cache. */
export type FindTokenWithUser = (id: number) => Promise<StoredTokenWithUser | null>;

/** A token by the SHA-256 (hex) of its secret, null when there is none. */
export type FindTokenByHash = (hash: string) => Promise<StoredToken | null>;

/** last_used_at is written at most this often per token: the token check stays read-only otherwise. */
const TOUCH_INTERVAL = MINUTE;

export interface IssueTokenInput {
  userId: number;
  name: string;
  abilities: readonly string[];
  expiresInSeconds?: number | null;
}

export async function issueAccessToken(
  db: Db,
  settings: AccessTokenSettings,
  input: IssueTokenInput,
  audit: AuditContext,
  /** token.issued for POST /api/tokens (with a password), token.created for the account page. */
  event: 'token.issued' | 'token.created' = 'token.issued',
): Promise<{ token: AccessToken; plainText: string }> {
  const secret = generateSecret(settings.prefix);
  const now = audit.now;
  // The row and its audit row (the token.issued/token.created webhook) commit together.
  const row = await inTransaction(db, async (trx) => {
    const inserted = await insertToken(trx, {
      user_id: input.userId,
      name: input.name,
      // Only the hash is stored: a copy of the database does not yield working tokens.
      token: sha256Hex(secret),
      abilities: JSON.stringify(input.abilities),
      last_used_at: null,
      expires_at: input.expiresInSeconds ? now + input.expiresInSeconds * 1000 : null,
      created_at: now,
      updated_at: now,
    });
    await recordAudit(trx, event, { ...audit, actorId: audit.actorId ?? input.userId }, input.userId, {
      token_id: inserted.id,
      name: input.name,
    });
    return inserted;
  });
  return { token: toAccessToken(row, settings), plainText: `${row.id}|${secret}` };
}

/** The plain lookup behind FindTokenWithUser. */
export function tokenWithUserFinder(db: Db, settings: AccessTokenSettings): FindTokenWithUser {
  return async (id) => {
    const row = await findTokenWithUserById(db, id);
    return row === undefined ? null : { ...toStoredToken(row, settings), user: joinedUser(row) };
  };
}

/** The plain lookup behind FindTokenByHash (an imported token's bare secret). */
export function tokenByHashFinder(db: Db, settings: AccessTokenSettings): FindTokenByHash {
  return async (hash) => {
    const row = await findTokenByHash(db, hash);
    return row === undefined ? null : toStoredToken(row, settings);
  };
}

function toStoredToken(row: AccessTokenRow, settings: AccessTokenSettings): StoredToken {
  return { token: toAccessToken(row, settings), secretHash: row.token, imported: row.imported_at !== null };
}

export interface TokenResolverDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly findTokenWithUser: FindTokenWithUser;
  readonly findTokenByHash: FindTokenByHash;
}

/** A live token, and its user when the lookup read it along (undefined: not read, ask the provider). */
export interface ResolvedToken {
  readonly token: AccessToken;
  readonly user?: User | null;
}

/**
 * Resolves a plaintext `<id>|<secret>` to its live token, else null. Lookup is by primary key, then a
 * constant-time comparison of hashes, so response time does not reveal how much of a secret matched.
 * A revoked or expired token fails on the very next request, in this process or any other.
 */
export async function resolveAccessToken(
  deps: TokenResolverDeps,
  plain: string,
): Promise<ResolvedToken | null> {
  const parsed = parsePlainToken(plain);
  const found: (StoredToken & { user?: User | null }) | null =
    parsed === null ? await findLegacyToken(deps, plain) : await deps.findTokenWithUser(parsed.id);
  if (found === null || !sha256Matches(parsed?.secret ?? legacySecret(plain), found.secretHash)) return null;
  const { token } = found;
  const now = deps.clock.now();
  if (!isTokenLive(token.expiresAt, now)) return null;
  if (token.lastUsedAt === null || token.lastUsedAt <= now - TOUCH_INTERVAL) {
    // Awaited (one UPDATE per token per minute): the request that used the token already sees it as
    // used (GET /api/tokens), and no write is left running when the pool closes. A failed write is
    // only bookkeeping, so it never fails the request.
    await touchToken(deps.db, token.id, now, now - TOUCH_INTERVAL).catch(() => {});
  }
  return { token, user: found.user };
}

/**
 * An imported token in one of Sanctum's older forms (token-format.ts parseLegacyToken). A token
 * Gatehouse issued never matches here: the strict form is the only one it hands out, and accepting
 * more for it would only widen what a leaked or guessed string can be.
 */
async function findLegacyToken(deps: TokenResolverDeps, plain: string): Promise<StoredToken | null> {
  const legacy = parseLegacyToken(plain);
  if (legacy === null) return null;
  const found =
    'id' in legacy
      ? await deps.findTokenWithUser(legacy.id)
      : await deps.findTokenByHash(sha256Hex(legacy.secret));
  return found?.imported ? found : null;
}

/** The secret of a plaintext that parsePlainToken refused: after the `|`, or the whole string. */
function legacySecret(plain: string): string {
  return plain.slice(plain.indexOf('|') + 1);
}

export async function listAccessTokens(db: Db, settings: AccessTokenSettings, userId: number) {
  return (await listTokensOfUser(db, userId)).map((row) => toAccessToken(row, settings));
}

export type RevokeFilter = { id: number } | { name: string } | { all: true };

/** Deletes the caller's matching tokens; returns how many. Someone else's token id matches nothing. */
export async function revokeAccessTokens(
  db: Db,
  userId: number,
  filter: RevokeFilter,
  audit: AuditContext,
): Promise<number> {
  // The deletion and its audit row (the token.revoked webhook) commit together.
  return inTransaction(db, async (trx) => {
    const count = await deleteTokens(trx, userId, 'all' in filter ? {} : filter);
    if (count > 0) {
      await recordAudit(trx, 'token.revoked', { ...audit, actorId: audit.actorId ?? userId }, userId, {
        ...('all' in filter ? { scope: 'all' } : filter),
        count,
      });
    }
    return count;
  });
}

/** Deletes the tokens the guard would refuse (tokens:prune); they are refused on sight anyway. */
export function pruneExpiredTokens(db: Db, settings: AccessTokenSettings, now: number): Promise<number> {
  return deleteExpiredTokens(db, tokenCutoffs(settings.expirationMinutes, now));
}

function toAccessToken(row: AccessTokenRow, settings: AccessTokenSettings): AccessToken {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    abilities: parseAbilities(row.abilities),
    lastUsedAt: row.last_used_at,
    expiresAt: tokenExpiresAt(row.expires_at, row.created_at, settings.expirationMinutes),
    createdAt: row.created_at,
  };
}
