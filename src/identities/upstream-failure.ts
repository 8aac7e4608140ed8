/**
 * Why a sign-in at another provider did not come back with a profile (docs/guides/login-providers.md).
 * Each reason is one translated message on /login (`identities.failure.<reason>`); `detail` goes to
 * the log only (never a token or a code).
 * - denied: the person said no at the provider (`error=access_denied`);
 * - failed: the answer did not pass a check (state, iss, the ID token, the code exchange), or none
 *   was under way in this browser;
 * - unavailable: the provider could not be reached (or its discovery document read);
 * - no_email: the provider gave no address, so no account can be found or made.
 */
export type UpstreamFailureReason = 'denied' | 'failed' | 'unavailable' | 'no_email';

export class UpstreamFailure extends Error {
  constructor(
    readonly reason: UpstreamFailureReason,
    readonly detail: string,
  ) {
    super(`upstream sign-in ${reason}: ${detail}`);
  }
}
