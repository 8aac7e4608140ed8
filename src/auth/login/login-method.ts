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
  /** A `passkey` proof's key: bound to one device or synced, and whether the device verified the person. */
  readonly passkey?: { readonly kind: 'hwk' | 'swk'; readonly userVerified: boolean };
  /** When the login completed (epoch ms): the `auth_time`. */
  readonly at: number;
}

export const LOGIN_METHOD_KEY = 'login_method';

/** The login method stored in a session, or null when there is none or it is malformed. */
export function storedLoginMethod(stored: unknown): LoginMethod | null {
  if (stored === null || typeof stored !== 'object') return null;
  const { proof, provider, secondFactor, at, passkey } = stored as Record<string, unknown>;
  if (proof !== 'password' && proof !== 'passkey' && proof !== 'provider') return null;
  if (typeof at !== 'number') return null;
  return {
    proof,
    ...(typeof provider === 'string' ? { provider } : {}),
    secondFactor: secondFactor === true,
    at,
    ...(proof === 'passkey' && isPasskeyFacts(passkey) ? { passkey } : {}),
  };
}

function isPasskeyFacts(value: unknown): value is NonNullable<LoginMethod['passkey']> {
  if (value === null || typeof value !== 'object') return false;
  const { kind, userVerified } = value as Record<string, unknown>;
  return (kind === 'hwk' || kind === 'swk') && typeof userVerified === 'boolean';
}

/**
 * The RFC 8176 `amr` of a login: `pwd` (password), `hwk`/`swk` (passkey), `fed` (another provider),
 * then `otp` after a second factor; `mfa` when two factors proved the person (a second factor, or a
 * passkey whose device verified the person).
 */
export function authenticationMethods(method: LoginMethod): string[] {
  const first =
    method.proof === 'password'
      ? 'pwd'
      : method.proof === 'provider'
        ? 'fed'
        : (method.passkey?.kind ?? 'hwk');
  const methods = [first, ...(method.secondFactor ? ['otp'] : [])];
  const multi = method.secondFactor || (method.proof === 'passkey' && method.passkey?.userVerified === true);
  return multi ? [...methods, 'mfa'] : methods;
}
