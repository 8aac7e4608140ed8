import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { insertReturningId } from '../../src/db/portable.ts';
import type { Db } from '../../src/db/schema.ts';
import { crc32Hex, sha256Hex } from '../../src/lib/crypto.ts';
import { countRows } from './app.ts';

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** POST /api/tokens with a JSON body (from `remoteAddress`, default 127.0.0.1). */
export function requestToken(
  app: FastifyInstance,
  body: Record<string, unknown>,
  remoteAddress?: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/tokens',
    payload: body,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

const TABLES = ['users', 'personal_access_tokens', 'posts', 'audit_log'] as const;

/** Row counts of the tables API requests can write, to prove a rejected request changed nothing. */
export async function snapshot(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = await countRows(db, table);
  return counts;
}

/** Runs `work` and asserts that no row was added or removed in the meantime. */
export async function assertUnchanged(db: Db, work: () => Promise<void>): Promise<void> {
  const before = await snapshot(db);
  await work();
  assert.deepEqual(await snapshot(db), before, 'stored data changed');
}

/** A docs/reference/errors.md JSON error: the status, a string message, JSON content type and no stack trace. */
export function assertJsonError(
  response: LightMyRequestResponse,
  status: number,
  label = '',
): { message: string } {
  assert.equal(response.statusCode, status, `${label}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/json/, label);
  const body = response.json();
  assert.equal(typeof body.message, 'string', label);
  assert.doesNotMatch(response.body, /\bat .+:\d+:\d+|node_modules|\.ts:\d+/, `${label}: stack trace leaked`);
  return body;
}

export async function tokenRow(db: Db, id: number) {
  return db.selectFrom('personal_access_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

export const tokenId = (plain: string) => Number(plain.slice(0, plain.indexOf('|')));

/**
 * Inserts a token row directly (without spending a login or the API allowance); returns its
 * plaintext `<id>|<secret>`. `entropy` is padded or cut to 40 characters.
 */
export async function insertTokenRow(
  db: Db,
  input: { userId: number; entropy: string; name?: string; createdAt?: number; expiresAt?: number | null },
): Promise<{ id: number; plain: string }> {
  const entropy = input.entropy.padEnd(40, 'x').slice(0, 40);
  const secret = `${entropy}${crc32Hex(entropy)}`;
  const createdAt = input.createdAt ?? Date.now();
  const id = await insertReturningId(db, 'personal_access_tokens', {
    user_id: input.userId,
    name: input.name ?? 'direct',
    token: sha256Hex(secret),
    abilities: '["*"]',
    last_used_at: null,
    expires_at: input.expiresAt ?? null,
    created_at: createdAt,
    updated_at: createdAt,
  });
  return { id, plain: `${id}|${secret}` };
}
