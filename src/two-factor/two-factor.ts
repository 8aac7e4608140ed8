import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { Database, Db } from '../db/schema.ts';
import { createSealer, type Sealer } from '../lib/sealing.ts';
import type { Mailing } from '../mail/mailing.ts';
import { recipientFor, twoFactorNoticeMessage } from '../mail/messages.ts';
import type { User } from '../users/user.ts';
import { findRecoveryCode, newRecoveryCodes } from './recovery-codes.ts';
import { matchingStep, newTotpSecret, otpauthUrl } from './totp.ts';
import {
  deleteTwoFactorRow,
  findTwoFactorRow,
  spendStep,
  storeEnrolment,
  swapRecoveryCodes,
} from './two-factor.repository.ts';
import type { TwoFactorCredentialsRow } from './two-factor.table.ts';

export interface TwoFactorDeps {
  readonly db: Kysely<Database>;
  /** Seals the secret and the recovery codes at rest (lib/sealing.ts, a key for this purpose only). */
  readonly sealer: Sealer;
  readonly mailing: Mailing;
  /** APP_NAME: the issuer an authenticator app shows beside the code. */
  readonly issuer: string;
}

/** What the account page and the panel show: never a secret. */
export interface TwoFactorState {
  readonly status: 'off' | 'enrolling' | 'on';
  readonly recoveryCodesLeft: number;
}

/** How the second factor was proven. */
export type Proof = { readonly code: string } | { readonly recoveryCode: string };

/** Who turned two-factor off: the user, an admin in the panel, or `gatehouse two-factor:disable`. */
export type DisabledBy = 'user' | 'admin' | 'cli';

/** A key derived for two-factor secrets only (lib/sealing.ts): it opens nothing else. */
export function twoFactorSealer(appKey: Buffer): Sealer {
  return createSealer(appKey, 'gatehouse/two-factor/v1');
}

// The associated data binds each sealed value to its user and column: a ciphertext copied to another
// row (someone else's secret pasted over an attacker's own) fails to open.
const secretLabel = (userId: number) => `two_factor_credentials.secret:${userId}`;
const codesLabel = (userId: number) => `two_factor_credentials.recovery_codes:${userId}`;

function openCodes(deps: TwoFactorDeps, row: TwoFactorCredentialsRow): string[] {
  return JSON.parse(deps.sealer.open(row.recovery_codes, codesLabel(row.user_id))) as string[];
}

function sealCodes(deps: TwoFactorDeps, userId: number, codes: readonly string[]): string {
  return deps.sealer.seal(JSON.stringify(codes), codesLabel(userId));
}

export async function twoFactorState(db: Db, deps: TwoFactorDeps, userId: number): Promise<TwoFactorState> {
  const row = await findTwoFactorRow(db, userId);
  if (row === undefined) return { status: 'off', recoveryCodesLeft: 0 };
  return {
    status: row.confirmed_at === null ? 'enrolling' : 'on',
    recoveryCodesLeft: openCodes(deps, row).length,
  };
}

/**
 * POST /user/two-factor-authentication: a new secret and recovery codes, not active until a code
 * proves an app holds the secret. Starting again replaces an unconfirmed enrolment; a confirmed one
 * is left as it is ('already_enabled'): turning it off is its own, deliberate step.
 */
export async function startEnrolment(
  deps: TwoFactorDeps,
  userId: number,
  audit: AuditContext,
): Promise<'started' | 'already_enabled'> {
  const secret = newTotpSecret();
  return deps.db.transaction().execute(async (trx) => {
    const stored = await storeEnrolment(trx, {
      user_id: userId,
      secret: deps.sealer.seal(secret, secretLabel(userId)),
      recovery_codes: sealCodes(deps, userId, newRecoveryCodes()),
      confirmed_at: null,
      last_used_step: null,
      created_at: audit.now,
      updated_at: audit.now,
    });
    if (!stored) return 'already_enabled';
    await recordAudit(trx, 'two_factor.enrolment_started', audit, userId);
    return 'started';
  });
}

/** The secret for manual entry and the key URI for the QR code; null before enrolment started. */
export async function enrolmentSetup(
  deps: TwoFactorDeps,
  user: Pick<User, 'id' | 'email'>,
): Promise<{ secret: string; url: string } | null> {
  const row = await findTwoFactorRow(deps.db, user.id);
  if (row === undefined) return null;
  const secret = deps.sealer.open(row.secret, secretLabel(user.id));
  return { secret, url: otpauthUrl(deps.issuer, user.email, secret) };
}

export async function unusedRecoveryCodes(deps: TwoFactorDeps, userId: number): Promise<string[] | null> {
  const row = await findTwoFactorRow(deps.db, userId);
  return row === undefined ? null : openCodes(deps, row);
}

/**
 * POST /user/confirmed-two-factor-authentication: a current code switches two-factor on (and spends
 * its step, so the code just typed cannot also pass a login challenge).
 */
export async function confirmEnrolment(
  deps: TwoFactorDeps,
  user: Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>,
  code: string,
  audit: AuditContext,
): Promise<'confirmed' | 'already_enabled' | 'invalid'> {
  const row = await findTwoFactorRow(deps.db, user.id);
  if (row === undefined) return 'invalid';
  if (row.confirmed_at !== null) return 'already_enabled';
  const step = matchingStep(deps.sealer.open(row.secret, secretLabel(user.id)), code, audit.now);
  if (step === null) return 'invalid';
  const confirmed = await deps.db.transaction().execute(async (trx) => {
    if (!(await spendStep(trx, user.id, step, audit.now, { confirmedAt: audit.now }))) return false;
    await recordAudit(trx, 'two_factor.enabled', audit, user.id);
    await deps.mailing.queue.enqueue(trx, notice(deps, user, { event: 'enabled', at: audit.now }));
    return true;
  });
  if (!confirmed) return 'invalid';
  deps.mailing.queue.wake();
  return 'confirmed';
}

/** New recovery codes; the old ones stop working at once. False when two-factor was never started. */
export async function regenerateRecoveryCodes(
  deps: TwoFactorDeps,
  userId: number,
  audit: AuditContext,
): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('two_factor_credentials')
      .set({ recovery_codes: sealCodes(deps, userId, newRecoveryCodes()), updated_at: audit.now })
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) return false;
    await recordAudit(trx, 'two_factor.recovery_codes_regenerated', audit, userId);
    return true;
  });
}

/**
 * Turns two-factor off (by the user, an admin or the CLI): the secret and the codes are deleted, and
 * the owner is told by mail when it had been on. False when there was nothing to turn off.
 */
export async function disableTwoFactor(
  deps: TwoFactorDeps,
  user: Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>,
  by: DisabledBy,
  audit: AuditContext,
): Promise<boolean> {
  const wasOn = await deps.db.transaction().execute(async (trx) => {
    const row = await findTwoFactorRow(trx, user.id);
    if (row === undefined || !(await deleteTwoFactorRow(trx, user.id))) return null;
    const on = row.confirmed_at !== null;
    await recordAudit(trx, 'two_factor.disabled', audit, user.id, { by, was_enabled: on });
    if (on) await deps.mailing.queue.enqueue(trx, notice(deps, user, { event: 'disabled', at: audit.now }));
    return on;
  });
  if (wasOn === null) return false;
  if (wasOn) deps.mailing.queue.wake();
  return true;
}

/**
 * Checks the second factor of a user with two-factor on: a TOTP code whose step was not used before,
 * or an unused recovery code (spent by this call). Throttling is the caller's (challenge.ts).
 */
export async function verifySecondFactor(
  deps: TwoFactorDeps,
  user: Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>,
  proof: Proof,
  audit: AuditContext,
): Promise<boolean> {
  if ('code' in proof) {
    const row = await findTwoFactorRow(deps.db, user.id);
    if (row === undefined || row.confirmed_at === null) return false;
    const step = matchingStep(deps.sealer.open(row.secret, secretLabel(user.id)), proof.code, audit.now);
    // The conditional UPDATE decides, not the read above: a replay racing the first use loses there.
    return step !== null && spendStep(deps.db, user.id, step, audit.now);
  }
  return spendRecoveryCode(deps, user, proof.recoveryCode, audit);
}

async function spendRecoveryCode(
  deps: TwoFactorDeps,
  user: Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>,
  presented: string,
  audit: AuditContext,
): Promise<boolean> {
  // Compare-and-swap on the sealed set: a writer that lost the race (another code spent meanwhile)
  // reads again; one that lost to a use of the SAME code then no longer finds it.
  for (let round = 0; round < 8; round++) {
    const row = await findTwoFactorRow(deps.db, user.id);
    if (row === undefined || row.confirmed_at === null) return false;
    const codes = openCodes(deps, row);
    const found = findRecoveryCode(codes, presented);
    if (found === null) return false;
    const left = codes.filter((code) => code !== found);
    const spent = await deps.db.transaction().execute(async (trx) => {
      if (
        !(await swapRecoveryCodes(
          trx,
          user.id,
          row.recovery_codes,
          sealCodes(deps, user.id, left),
          audit.now,
        ))
      )
        return false;
      await recordAudit(trx, 'two_factor.recovery_code_used', audit, user.id, { left: left.length });
      await deps.mailing.queue.enqueue(
        trx,
        notice(deps, user, { event: 'recovery_code_used', at: audit.now, codesLeft: left.length }),
      );
      return true;
    });
    if (spent) {
      deps.mailing.queue.wake();
      return true;
    }
  }
  return false;
}

function notice(
  deps: TwoFactorDeps,
  user: Pick<User, 'email' | 'name' | 'locale' | 'emailVerifiedAt'>,
  event: Parameters<typeof twoFactorNoticeMessage>[2],
) {
  return twoFactorNoticeMessage(deps.mailing.context, recipientFor(user, user.locale), event);
}
