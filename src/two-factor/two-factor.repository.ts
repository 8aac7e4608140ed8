import { insertUnlessDuplicate } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { NewTwoFactorCredentialsRow, TwoFactorCredentialsRow } from './two-factor.table.ts';

export function findTwoFactorRow(db: Db, userId: number): Promise<TwoFactorCredentialsRow | undefined> {
  return db.selectFrom('two_factor_credentials').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Whether a login of this user must pass the challenge (two-factor confirmed). One primary-key read. */
export async function hasConfirmedTwoFactor(db: Db, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('two_factor_credentials')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A new, unconfirmed enrolment replacing an unconfirmed one. A confirmed row is never touched here
 * (false): starting again must not switch off a working second factor (Fortify #201's lock-out came
 * from activating — or replacing — a secret no app had proven it holds).
 */
export async function storeEnrolment(db: Db, row: NewTwoFactorCredentialsRow): Promise<boolean> {
  const replaced = await db
    .updateTable('two_factor_credentials')
    .set({
      secret: row.secret,
      recovery_codes: row.recovery_codes,
      last_used_step: null,
      updated_at: row.updated_at,
    })
    .where('user_id', '=', row.user_id)
    .where('confirmed_at', 'is', null)
    .executeTakeFirst();
  if (replaced.numUpdatedRows === 1n) return true;
  // No row, or a confirmed one (the primary key refuses the insert then).
  return insertUnlessDuplicate(db.insertInto('two_factor_credentials').values(row));
}

/**
 * Spends TOTP step `step`: one conditional UPDATE, so of any number of concurrent requests (on any
 * instance) with codes of this step exactly one gets true; a code of an earlier step than the last
 * accepted one is refused too (RFC 6238 §5.2: a verifier must not accept the second attempt of an
 * OTP after a successful validation). `confirmedOnly` picks login (true) or enrolment confirmation.
 */
export async function spendStep(
  db: Db,
  userId: number,
  step: number,
  now: number,
  update: { confirmedAt?: number } = {},
): Promise<boolean> {
  const result = await db
    .updateTable('two_factor_credentials')
    .set({
      last_used_step: step,
      updated_at: now,
      ...(update.confirmedAt ? { confirmed_at: update.confirmedAt } : {}),
    })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .where('confirmed_at', update.confirmedAt ? 'is' : 'is not', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Replaces the sealed recovery codes only if they are still `expected` (compare-and-swap). Every
 * sealing has a fresh IV, so two writers can never hold the same `expected` after one of them
 * succeeded: two concurrent uses of one code let exactly one in.
 */
export async function swapRecoveryCodes(
  db: Db,
  userId: number,
  expected: string,
  replacement: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('two_factor_credentials')
    .set({ recovery_codes: replacement, updated_at: now })
    .where('user_id', '=', userId)
    .where('recovery_codes', '=', expected)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function deleteTwoFactorRow(db: Db, userId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('two_factor_credentials')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
