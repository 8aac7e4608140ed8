import { createHash, createHmac, hash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniformly random [A-Za-z0-9] string (randomInt rejects biased draws; 40 chars ≈ 238 bits). */
export function randomAlnum(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

/** URL-safe random string carrying `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** One-shot crypto.hash: about half the cost of a createHash() object on the per-request paths. */
export function sha256Hex(value: string): string {
  return hash('sha256', value);
}

export function sha1Hex(value: string): string {
  return createHash('sha1').update(value).digest('hex');
}

export function hmacSha256Hex(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

/** crc32b as 8 lowercase hex digits, the checksum Sanctum appends to token secrets. */
export function crc32Hex(value: string): string {
  return crc32(value).toString(16).padStart(8, '0');
}

/** Whether `hex` (8 lowercase hex digits) is the crc32b of `value`; no number-to-text conversion. */
export function crc32Matches(value: string, hex: string): boolean {
  return Number.parseInt(hex, 16) === crc32(value);
}

/**
 * Constant-time check that SHA-256(`plain`), in hex, is `storedHex` (a digest we wrote, lower-case).
 * One hash where safeEqual(sha256Hex(plain), stored) spends three: both sides are digests of a fixed,
 * public length, and every character pair is compared, whatever differs first (no early exit). Even a
 * leak here would only tell how much of a SHA-256 digest matched, which says nothing about the secret.
 */
export function sha256Matches(plain: string, storedHex: string): boolean {
  const actual = hash('sha256', plain);
  if (actual.length !== storedHex.length) return false;
  let difference = 0;
  for (let i = 0; i < actual.length; i++) difference |= actual.charCodeAt(i) ^ storedHex.charCodeAt(i);
  return difference === 0;
}

/**
 * Constant-time string equality. Both sides are hashed first so that the comparison never
 * short-circuits on length and timingSafeEqual always sees equal-length buffers.
 */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
