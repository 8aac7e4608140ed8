import type { AuditContext } from '../audit/audit.ts';
import { type LoginMeter, metered } from '../auth/login/login-outcome.ts';
import type { User } from '../users/user.ts';
import { type ChallengeDeps, passChallenge } from './challenge.ts';
import { hasConfirmedTwoFactor } from './two-factor.repository.ts';
import {
  confirmEnrolment,
  type DisabledBy,
  disableTwoFactor,
  enrolmentSetup,
  type Proof,
  regenerateRecoveryCodes,
  startEnrolment,
  twoFactorState,
  unusedRecoveryCodes,
  verifySecondFactor,
} from './two-factor.ts';

type Someone = Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>;

/**
 * Two-factor authentication's use cases (docs/guides/two-factor.md), bound once to their dependencies
 * by the auth service: enrolment, recovery codes, the login challenge (each attempt counted once by
 * `meter`), turning it off.
 */
export function createTwoFactorService(challenge: ChallengeDeps, meter: LoginMeter) {
  const { db } = challenge;
  return {
    state: (userId: number) => twoFactorState(db, challenge, userId),
    /** Whether logins of this user are challenged (two-factor confirmed). */
    isOn: (userId: number) => hasConfirmedTwoFactor(db, userId),
    start: (userId: number, audit: AuditContext) => startEnrolment(challenge, userId, audit),
    setup: (user: Pick<User, 'id' | 'email'>) => enrolmentSetup(challenge, user),
    confirm: (user: Someone, code: string, audit: AuditContext) =>
      confirmEnrolment(challenge, user, code, audit),
    recoveryCodes: (userId: number) => unusedRecoveryCodes(challenge, userId),
    regenerate: (userId: number, audit: AuditContext) => regenerateRecoveryCodes(challenge, userId, audit),
    disable: (user: Someone, by: DisabledBy, audit: AuditContext) =>
      disableTwoFactor(challenge, user, by, audit),
    challenge: async (
      user: User,
      proof: Proof,
      attempt: { channel: 'web' | 'admin' | 'api'; pendingId: string | null },
      audit: AuditContext,
    ) => metered(meter, attempt.channel, await passChallenge(challenge, user, proof, attempt, audit)),
    /** The second-factor check alone, without the challenge's throttle (callers that throttle). */
    verify: (user: Someone, proof: Proof, audit: AuditContext) =>
      verifySecondFactor(challenge, user, proof, audit),
  };
}
