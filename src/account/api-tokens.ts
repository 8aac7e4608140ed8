import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import { updateTokenAbilities } from '../auth/tokens/access-tokens.repository.ts';
import {
  type AccessToken,
  type AccessTokenSettings,
  issueAccessToken,
  revokeAccessTokens,
} from '../auth/tokens/access-tokens.ts';
import type { Database } from '../db/schema.ts';
import { field, type JsonSchema, rules } from '../lib/validation.ts';

export interface ApiTokenDeps {
  readonly db: Kysely<Database>;
  readonly settings: AccessTokenSettings;
  /** TOKEN_ABILITIES: what a token made on the account page may hold (never `*`). */
  readonly catalogue: readonly string[];
}

/**
 * The abilities field of the account page's token forms: a list (a form's single checkbox arrives as
 * one string) of catalogue entries, no duplicates. Empty is allowed: a token that may only read
 * GET /api/user.
 */
export function abilitiesField(catalogue: readonly string[]) {
  return field.optional(
    rules.custom((value) => {
      const list = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(list) || list.length > catalogue.length * 2) return { key: 'validation.array' };
      if (!list.every((a) => typeof a === 'string' && catalogue.includes(a))) return { key: 'validation.in' };
      return undefined;
    }, abilitiesJson(catalogue)),
  );
}

/** The same in JSON Schema (/openapi.json): a list of catalogue entries, or one entry alone. */
function abilitiesJson(catalogue: readonly string[]): JsonSchema {
  return {
    anyOf: [
      { type: 'array', items: { enum: [...catalogue] }, maxItems: catalogue.length * 2 },
      { enum: [...catalogue] },
    ],
  };
}

export function createTokenSchema(catalogue: readonly string[]) {
  return {
    name: field.required(rules.line(), rules.max(255)),
    abilities: abilitiesField(catalogue),
    expires_in: field.nullable(rules.integer(1, 10 * 366 * 24 * 3600)),
  };
}

export function abilitiesSchema(catalogue: readonly string[]) {
  return { abilities: abilitiesField(catalogue) };
}

/** The submitted abilities as a clean list (deduplicated, in catalogue order). */
export function chosenAbilities(catalogue: readonly string[], value: unknown): string[] {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return catalogue.filter((ability) => list.includes(ability));
}

/** A token made on the account page: audited as token.created with the token (same transaction). */
export async function createApiToken(
  deps: ApiTokenDeps,
  userId: number,
  input: { name: string; abilities: readonly string[]; expiresInSeconds: number | null },
  audit: AuditContext,
): Promise<{ token: AccessToken; plainText: string }> {
  return deps.db.transaction().execute((trx) =>
    issueAccessToken(
      trx,
      deps.settings,
      {
        userId,
        name: input.name.trim(),
        abilities: input.abilities,
        expiresInSeconds: input.expiresInSeconds,
      },
      audit,
      'token.created',
    ),
  );
}

export async function updateApiTokenAbilities(
  deps: ApiTokenDeps,
  userId: number,
  tokenId: number,
  abilities: readonly string[],
  audit: AuditContext,
): Promise<'updated' | 'not_found'> {
  return deps.db.transaction().execute(async (trx) => {
    if (!(await updateTokenAbilities(trx, userId, tokenId, JSON.stringify(abilities), audit.now)))
      return 'not_found';
    await recordAudit(trx, 'token.updated', audit, userId, { token_id: tokenId, abilities });
    return 'updated';
  });
}

export async function revokeApiToken(
  deps: ApiTokenDeps,
  userId: number,
  tokenId: number,
  audit: AuditContext,
): Promise<'revoked' | 'not_found'> {
  return deps.db
    .transaction()
    .execute(async (trx) =>
      (await revokeAccessTokens(trx, userId, { id: tokenId }, audit)) > 0 ? 'revoked' : 'not_found',
    );
}
