import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import { MINUTE } from '../lib/clock.ts';
import type { Sealer } from '../lib/sealing.ts';

/**
 * One sign-in at a provider under way in one browser: the `state`, `nonce` and PKCE verifier sent (or
 * derived into what was sent) to the provider, and what to do when it comes back. It travels in a
 * cookie, sealed with a key derived from APP_KEY *and bound to the provider*: the provider's name is
 * the sealed value's associated data, so an attempt started for one provider does not open at another's
 * callback (Auth.js GHSA-x445-f3h2-j279 checked state and PKCE from cookies not tied to the provider).
 * The cookie is HttpOnly and lives 10 minutes; the callback spends it whatever the outcome.
 */
export interface UpstreamAttempt {
  readonly provider: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  /** "Remember me" as ticked when the sign-in started (/auth/{provider}?remember=1). */
  readonly remember: boolean;
  /** Link to this signed-in user instead of signing in (/auth/{provider}?link=1), else null. */
  readonly linkUserId: number | null;
  readonly expiresAt: number;
}

export const ATTEMPT_TTL_MS = 10 * MINUTE;

export function newAttempt(
  provider: string,
  options: { remember: boolean; linkUserId: number | null },
  now: number,
): UpstreamAttempt {
  return {
    provider,
    state: randomState(),
    nonce: randomNonce(),
    codeVerifier: randomPKCECodeVerifier(),
    remember: options.remember,
    linkUserId: options.linkUserId,
    expiresAt: now + ATTEMPT_TTL_MS,
  };
}

const associated = (provider: string) => `upstream-attempt:${provider}`;

export function sealAttempt(sealer: Sealer, attempt: UpstreamAttempt): string {
  return sealer.seal(JSON.stringify(attempt), associated(attempt.provider));
}

/**
 * The attempt in `sealed` if it was sealed here, for `provider`, and has not expired; else null (a
 * forged, altered, other provider's or stale cookie looks the same as none).
 */
export function openAttempt(
  sealer: Sealer,
  provider: string,
  sealed: string | undefined,
  now: number,
): UpstreamAttempt | null {
  if (sealed === undefined || sealed === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(sealer.open(sealed, associated(provider)));
  } catch {
    return null;
  }
  const attempt = value as Partial<UpstreamAttempt> | null;
  if (
    attempt === null ||
    typeof attempt !== 'object' ||
    attempt.provider !== provider ||
    typeof attempt.state !== 'string' ||
    typeof attempt.nonce !== 'string' ||
    typeof attempt.codeVerifier !== 'string' ||
    typeof attempt.expiresAt !== 'number' ||
    attempt.expiresAt <= now
  ) {
    return null;
  }
  return {
    provider,
    state: attempt.state,
    nonce: attempt.nonce,
    codeVerifier: attempt.codeVerifier,
    remember: attempt.remember === true,
    linkUserId: typeof attempt.linkUserId === 'number' ? attempt.linkUserId : null,
    expiresAt: attempt.expiresAt,
  };
}
