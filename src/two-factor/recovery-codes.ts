import { randomInt } from 'node:crypto';
import { safeEqual } from '../lib/crypto.ts';

export const RECOVERY_CODE_COUNT = 8;

// Lower-case letters and digits: easy to read aloud and type from paper; 20 characters ≈ 103 bits,
// far beyond guessing within any throttle.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomPart(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** A fresh set of recovery codes, each "xxxxxxxxxx-xxxxxxxxxx" (Fortify's shape). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${randomPart(10)}-${randomPart(10)}`);
}

/**
 * The stored code that `presented` is, or null. Case and surrounding spaces are forgiven (codes are
 * typed from paper). Every stored code is compared, in constant time, whatever matched first, so the
 * answer's timing says nothing about which code (or how much of one) was right.
 */
export function findRecoveryCode(codes: readonly string[], presented: string): string | null {
  const wanted = presented.trim().toLowerCase();
  let found: string | null = null;
  for (const code of codes) {
    if (safeEqual(code, wanted) && found === null) found = code;
  }
  return found;
}
