import { test } from 'node:test';
import type { Db } from '../../../src/db/schema.ts';
import { insertUser } from '../../../src/users/users.repository.ts';
import type { NewUserRow, UserRow } from '../../../src/users/users.table.ts';
import type { TestApp } from '../../helpers/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: any function of any repository, compared by identity only
type AnyFunction = (...args: any[]) => unknown;

/** Every repository function some contract test exercises (storage.test.ts checks none is missing). */
export const covered = new Set<AnyFunction>();

/**
 * A storage contract test: `body` runs on each dialect's database (test/contract/storage.test.ts) and
 * exercises `functions`, exported repository functions, through their signatures only.
 */
export function covers(functions: readonly AnyFunction[], title: string, body: () => Promise<void>): void {
  for (const fn of functions) covered.add(fn);
  test(title, body);
}

/** A suite's tests, registered inside one dialect's describe(); `ctx` is that dialect's test app. */
export type ContractSuite = (ctx: () => TestApp) => void;

let counter = 0;

/** A unique lower-cased address (the users.email column holds nothing else). */
export function uniqueEmail(label = 'storage'): string {
  return `${label}${++counter}-${Date.now()}@example.com`;
}

/** A user row to insert: unverified, no panel access, created `now`. */
export function newUserRow(overrides: Partial<NewUserRow> = {}, now = Date.now()): NewUserRow {
  return {
    name: 'Storage',
    email: uniqueEmail(),
    password: 'x',
    email_verified_at: null,
    locale: 'en',
    can_access_panel: 0,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

export function aUser(db: Db, overrides: Partial<NewUserRow> = {}): Promise<UserRow> {
  return insertUser(db, newUserRow(overrides));
}

/** `count` calls of `attempt` at once; how many of them answered true. */
export async function winners(count: number, attempt: (i: number) => Promise<boolean>): Promise<number> {
  const results = await Promise.all(Array.from({ length: count }, (_, i) => attempt(i)));
  return results.filter(Boolean).length;
}

/** A 64-character hex-looking string unique to `label` (token, session and credential hashes). */
export function hash64(label: string): string {
  return `${label}-${++counter}-${Date.now()}`.padEnd(64, '0').slice(0, 64);
}
