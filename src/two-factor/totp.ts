import { Secret, TOTP } from 'otpauth';

/**
 * RFC 6238 TOTP as every authenticator app speaks it: HMAC-SHA1, 6 digits, 30-second steps. The
 * arithmetic is otpauth's (a maintained implementation with RFC test vectors; on Node it computes the
 * HMAC with node:crypto and compares in constant time), so this file only fixes the parameters and
 * the policy: a 160-bit secret (RFC 4226 §4 recommends 160), one step of clock drift either side, and
 * it reports *which* step matched so that the caller can refuse that step a second time.
 */
export const TOTP_PARAMETERS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
const DRIFT_STEPS = 1;

/** A new random secret, base32 (RFC 4648, no padding) as authenticator apps expect it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The time step that `now` falls in. */
export function stepAt(now: number): number {
  return TOTP.counter({ period: TOTP_PARAMETERS.period, timestamp: now });
}

/**
 * The step (within ±1 of now) whose code `code` is, or null. Spaces are ignored ("123 456" as some
 * apps show it); anything but six digits is refused before any HMAC is computed.
 */
export function matchingStep(secret: string, code: string, now: number): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = TOTP.validate({
    ...TOTP_PARAMETERS,
    token,
    secret: Secret.fromBase32(secret),
    timestamp: now,
    window: DRIFT_STEPS,
  });
  return delta === null ? null : stepAt(now) + delta;
}

/** The code of the step `now` falls in (tests and the CLI's diagnostics; never sent to a client). */
export function codeAt(secret: string, now: number): string {
  return TOTP.generate({ ...TOTP_PARAMETERS, secret: Secret.fromBase32(secret), timestamp: now });
}

/**
 * The key URI an authenticator app scans (Google's Key Uri Format), in docs/guides/two-factor.md's parameter
 * order: otpauth://totp/<issuer>:<account>?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30.
 */
export function otpauthUrl(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = [
    `secret=${secret}`,
    `issuer=${encodeURIComponent(issuer)}`,
    `algorithm=${TOTP_PARAMETERS.algorithm}`,
    `digits=${TOTP_PARAMETERS.digits}`,
    `period=${TOTP_PARAMETERS.period}`,
  ].join('&');
  return `otpauth://totp/${label}?${query}`;
}
