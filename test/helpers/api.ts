import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/db/schema.ts';
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

/** A CONTRACT §2 JSON error: the status, a string message, JSON content type and no stack trace. */
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
