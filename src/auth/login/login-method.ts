/**
 * What proved the user at a browser login's first step (http/login-completion.ts): the password form,
 * a passkey, or a sign-in at another provider (docs/guides/login-providers.md).
 */
export type LoginProof = 'password' | 'passkey' | 'provider';

/**
 * How the session's user signed in, kept in the session from its login on (session key
 * LOGIN_METHOD_KEY): the OpenID provider names it in `amr` (`pwd`, `hwk`/`swk`, `fed`, with `otp` and
 * `mfa` after a second factor). A session restored by a remember-me cookie has none.
 */
export interface LoginMethod {
  readonly proof: LoginProof;
  /** The LOGIN_PROVIDERS name of a `provider` proof. */
  readonly provider?: string;
  /** A second factor (TOTP or recovery code) was passed after the proof. */
  readonly secondFactor: boolean;
  /** When the login completed (epoch ms): the `auth_time`. */
  readonly at: number;
}

export const LOGIN_METHOD_KEY = 'login_method';

/** The login method stored in a session, or null when there is none or it is malformed. */
export function storedLoginMethod(stored: unknown): LoginMethod | null {
  if (stored === null || typeof stored !== 'object') return null;
  const { proof, provider, secondFactor, at } = stored as Record<string, unknown>;
  if (proof !== 'password' && proof !== 'passkey' && proof !== 'provider') return null;
  if (typeof at !== 'number') return null;
  return {
    proof,
    ...(typeof provider === 'string' ? { provider } : {}),
    secondFactor: secondFactor === true,
    at,
  };
}
