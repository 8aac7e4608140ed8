import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { Limit, RateLimiter } from '../auth/throttle/rate-limiter.ts';
import type { User } from '../users/user.ts';
import { type Proof, type TwoFactorDeps, verifySecondFactor } from './two-factor.ts';

export interface ChallengeDeps extends TwoFactorDeps {
  readonly limiter: RateLimiter;
  /** docs/guides/two-factor.md: 5 a minute, per pending login and per user. */
  readonly limit: Limit;
}

export type ChallengeResult =
  | { readonly status: 'passed' }
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
    return { status: 'invalid' };
  }
  await Promise.all(keys.map((key) => deps.limiter.clear(key)));
  return { status: 'passed' };
}
