import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { DatabaseHandle } from '../db/connection.ts';
import { CachedLookup } from '../db/fast-path/kept-lookup.ts';
import type { Db } from '../db/schema.ts';
import type { Clock } from '../lib/clock.ts';
import { digestBytes, sha256Hex, sha256Matches } from '../lib/crypto.ts';
import { parseAbilities } from './abilities.ts';
import {
  deleteExpiredTokens,
  deleteTokens,
  findTokenById,
  insertToken,
  listTokensOfUser,
  touchToken,
} from './access-tokens.repository.ts';
import type { AccessTokenRow } from './access-tokens.table.ts';
import { generateSecret, parsePlainToken } from './token-format.ts';

export interface AccessTokenSettings {
  /** TOKEN_EXPIRATION: minutes from creation, null = never. Read at check time, like Sanctum. */
  readonly expirationMinutes: number | null;
  readonly prefix: string;
}

export interface AccessToken {
  readonly id: number;
  readonly userId: number;
  readonly name: string;
  readonly abilities: readonly string[];
  readonly lastUsedAt: number | null;
  /** The effective expiry: the earlier of the per-token expiry and creation + TOKEN_EXPIRATION. */
  readonly expiresAt: number | null;
  readonly createdAt: number;
}

const MINUTE = 60_000;
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
): Promise<{ token: AccessToken; plainText: string }> {
  const secret = generateSecret(settings.prefix);
  const now = audit.now;
  const row = await insertToken(db, {
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
  await recordAudit(db, 'token.issued', { ...audit, actorId: audit.actorId ?? input.userId }, input.userId, {
    token_id: row.id,
    name: input.name,
  });
  return { token: toAccessToken(row, settings), plainText: `${row.id}|${secret}` };
}

/**
 * Resolves plaintext `<id>|<secret>` tokens to live tokens (null otherwise). Lookup is by primary key,
 * then a constant-time comparison of hashes, so response time does not reveal how much of a secret
 * matched. The row is kept between requests until the database reports a change (db/fast-path/kept-lookup.ts):
 * a revoked token fails on the next request, in this process or any other.
 */
export function accessTokenResolver(
  database: Pick<DatabaseHandle, 'db' | 'changes'>,
  settings: AccessTokenSettings,
  clock: Clock,
): (plain: string) => Promise<AccessToken | null> {
  const { db } = database;
  const byId = new CachedLookup(database.changes, async (id: number) => {
    const row = await findTokenById(db, id);
    if (row === undefined) return null;
    // Shared by every request that presents this token: frozen, abilities included.
    const token = toAccessToken(row, settings);
    Object.freeze(token.abilities);
    return Object.freeze({ digest: digestBytes(row.token), token: Object.freeze(token) });
  });
  return async (plain) => {
    const parsed = parsePlainToken(plain);
    if (parsed === null) return null;
    const found = await byId.get(parsed.id);
    if (found === null || !sha256Matches(parsed.secret, found.digest)) return null;
    const { token } = found;
    const now = clock.now();
    if (token.expiresAt !== null && token.expiresAt <= now) return null;
    if (token.lastUsedAt === null || token.lastUsedAt <= now - TOUCH_INTERVAL) {
      // Awaited (one UPDATE per token per minute): the request that used the token already sees it as
      // used (GET /api/tokens), and no write is left running when the pool closes. A failed write is
      // only bookkeeping, so it never fails the request.
      await touchToken(db, token.id, now, now - TOUCH_INTERVAL).catch(() => {});
    }
    return token;
  };
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
  const count = await deleteTokens(db, userId, 'all' in filter ? {} : filter);
  if (count > 0) {
    await recordAudit(db, 'token.revoked', { ...audit, actorId: audit.actorId ?? userId }, userId, {
      ...('all' in filter ? { scope: 'all' } : filter),
      count,
    });
  }
  return count;
}

export async function pruneExpiredTokens(
  db: Db,
  settings: AccessTokenSettings,
  clock: Clock,
): Promise<number> {
  const now = clock.now();
  const createdBefore =
    settings.expirationMinutes === null ? null : now - settings.expirationMinutes * MINUTE;
  return deleteExpiredTokens(db, now, createdBefore);
}

function toAccessToken(row: AccessTokenRow, settings: AccessTokenSettings): AccessToken {
  const byConfig =
    settings.expirationMinutes === null ? null : row.created_at + settings.expirationMinutes * MINUTE;
  const expiresAt =
    row.expires_at === null
      ? byConfig
      : byConfig === null
        ? row.expires_at
        : Math.min(byConfig, row.expires_at);
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    abilities: parseAbilities(row.abilities),
    lastUsedAt: row.last_used_at,
    expiresAt,
    createdAt: row.created_at,
  };
}
