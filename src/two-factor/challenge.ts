import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { Limit, RateLimiter } from '../auth/throttle/rate-limiter.ts';
import type { User } from '../users/user.ts';
import { type Proof, type TwoFactorDeps, unusedRecoveryCodes, verifySecondFactor } from './two-factor.ts';
import { countWrongCode, endWrongCodeStreak, wrongCodesLockout } from './wrong-codes.ts';

export interface ChallengeDeps extends TwoFactorDeps {
  readonly limiter: RateLimiter;
  /** docs/guides/two-factor.md: 5 a minute, per pending login and per user. */
  readonly limit: Limit;
}

export type ChallengeResult =
  /** `recoveryCodesLeft`: after a recovery code, how many are left (the next page says so). */
  | { readonly status: 'passed'; readonly recoveryCodesLeft?: number }
  | { readonly status: 'invalid' }
  | { readonly status: 'throttled'; readonly retryAfterSeconds: number };

/**
 * The second step of a login (web, admin, API token): its own throttle, on keys of its own, so that
 * failed codes never count toward the password throttle and can never lock the password out
 * (Keycloak #46164 shared one counter, which made lockout a denial-of-service lever). Two keys: the
 * pending login (one browser's attempt) and the user (every attempt, from anywhere, with the right
 * password: someone holding it cannot try codes faster by starting many logins). An attempt is
 * reserved before the code is checked, so concurrent guesses cannot exceed the limit.
 */
export async function passChallenge(
  deps: ChallengeDeps,
  user: User,
  proof: Proof,
  attempt: { channel: 'web' | 'admin' | 'api'; pendingId: string | null },
  audit: AuditContext,
): Promise<ChallengeResult> {
  const keys = [
    `two-factor:user:${user.id}`,
    ...(attempt.pendingId === null ? [] : [`two-factor:pending:${attempt.pendingId}`]),
  ];
  const method = 'code' in proof ? 'code' : 'recovery_code';
  // Ten wrong codes in a row refuse every door for 15 minutes, the right code too (wrong-codes.ts).
  const lockedMs = await wrongCodesLockout(deps.db, user.id, audit.now);
  if (lockedMs > 0) return { status: 'throttled', retryAfterSeconds: Math.ceil(lockedMs / 1000) };
  for (const key of keys) {
    const reserved = await deps.limiter.attempt(key, deps.limit);
    if (!reserved.allowed) {
      if (reserved.firstRefusal)
        await recordAudit(deps.db, 'two_factor.lockout', audit, user.id, { channel: attempt.channel });
      return { status: 'throttled', retryAfterSeconds: reserved.retryAfterSeconds };
    }
  }
  if (!(await verifySecondFactor(deps, user, proof, audit))) {
    await recordAudit(deps.db, 'two_factor.challenge_failed', audit, user.id, {
      channel: attempt.channel,
      method,
    });
    await countWrongCode(deps, user, attempt.channel, audit);
    return { status: 'invalid' };
  }
  await endWrongCodeStreak(deps.db, user.id);
  await Promise.all(keys.map((key) => deps.limiter.clear(key)));
  if ('code' in proof) return { status: 'passed' };
  return { status: 'passed', recoveryCodesLeft: (await unusedRecoveryCodes(deps, user.id))?.length ?? 0 };
}
