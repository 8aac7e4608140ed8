import type { UpstreamAttempt } from '../attempt.ts';
import type { UpstreamProfile } from '../profile.ts';
import { UpstreamFailure } from '../upstream-failure.ts';

/**
 * One configured login provider as the sign-in uses it (docs/guides/login-providers.md). Every check of
 * the provider's answer is the library's (openid-client): state, the RFC 9207 `iss` parameter when the
 * provider sends it (or announces it), the code exchange with the PKCE verifier, and for OpenID
 * providers the ID token's signature, `iss`, `aud`, `exp` and `nonce`.
 */
export interface UpstreamProvider {
  readonly name: string;
  readonly label: string;
  readonly trustEmail: boolean;
  /** Whether the provider can be used now (an OpenID provider: its discovery document was read). */
  readonly ready: boolean;
  /** Reads the discovery document unless that is done (or under way); true once the provider is ready. */
  prepare(): Promise<boolean>;
  /** Where to send the browser: the authorization request carrying the attempt's state, nonce and S256 challenge. */
  authorizationUrl(redirectUri: string, attempt: UpstreamAttempt): Promise<URL>;
  /** Checks the callback (its full URL as received) and returns who signed in; throws UpstreamFailure. */
  complete(callbackUrl: URL, attempt: UpstreamAttempt): Promise<UpstreamProfile>;
}

/** Seconds a request to a provider may take before it counts as unreachable. */
export const PROVIDER_TIMEOUT_SECONDS = 10;

/**
 * What an error from openid-client (or fetch) means for the person: the provider was unreachable (a
 * network error, a timeout, a 5xx), the person said no, or the answer failed a check.
 */
export function upstreamFailure(error: unknown): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  const detail = describe(error);
  if (unreachable(error)) return new UpstreamFailure('unavailable', detail);
  const code = (error as { error?: unknown }).error;
  if ((error as { code?: unknown }).code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR' && code === 'access_denied')
    return new UpstreamFailure('denied', detail);
  return new UpstreamFailure('failed', detail);
}

function unreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  if (error instanceof TypeError && error.message === 'fetch failed') return true;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Response && cause.status >= 500) return true;
  return cause instanceof Error && cause !== error && unreachable(cause);
}

/** A line for the log: the error's class, code and message (never a token: the library puts none there). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const oauthError = (error as { error?: unknown }).error;
  return [
    error.name,
    typeof code === 'string' ? code : null,
    typeof oauthError === 'string' ? oauthError : null,
    error.message,
  ]
    .filter(Boolean)
    .join(': ');
}
