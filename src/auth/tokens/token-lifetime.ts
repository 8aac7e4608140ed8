import { MINUTE } from '../../lib/clock.ts';

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
