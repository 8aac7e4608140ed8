import type { LoginResult as MeteredResult } from '../../metrics/metrics.ts';
import type { ChallengeResult } from '../../two-factor/challenge.ts';
import type { LoginResult } from './login.ts';
import type { TokenLoginResult } from './token-login.ts';

/** Counts one decided login attempt (metrics/metrics.ts Metrics.login). */
export type LoginMeter = (guard: string, result: MeteredResult) => void;

/**
 * The result a login attempt is counted under (gatehouse_logins_total), from whichever step decided
 * it: the password (web, admin), the token login (api, which may carry its second factor), or the
 * two-factor challenge that completes a browser login. `two_factor`: the password was right and a
 * second factor is now asked for; the challenge that follows is an attempt of its own.
 */
export function loginOutcome(result: LoginResult | TokenLoginResult | ChallengeResult): MeteredResult {
  switch (result.status) {
    case 'ok':
      return 'twoFactor' in result && result.twoFactor ? 'two_factor' : 'success';
    case 'passed':
      return 'success';
    case 'two_factor_required':
      return 'two_factor';
    case 'throttled':
      return 'throttled';
    default:
      return 'failed';
  }
}

/** Passes `result` through, counted once for `guard`. */
export function metered<R extends LoginResult | TokenLoginResult | ChallengeResult>(
  meter: LoginMeter,
  guard: string,
  result: R,
): R {
  meter(guard, loginOutcome(result));
  return result;
}
