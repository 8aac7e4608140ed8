import { MAX_ID } from '../../db/ids.ts';
import { crc32Hex, crc32Matches, randomAlnum } from '../../lib/crypto.ts';

/**
 * Sanctum's secret: <prefix><40 random [A-Za-z0-9]><crc32b of those 40>. The checksum lets secret
 * scanners recognise leaked tokens offline, and lets us reject garbage before touching the database.
 */
export function generateSecret(prefix: string): string {
  const entropy = randomAlnum(40);
  return `${prefix}${entropy}${crc32Hex(entropy)}`;
}

export interface ParsedToken {
  id: number;
  secret: string;
}

/**
 * Parses `<id>|<secret>`; null for any other shape. Only this form authenticates: a bare secret
 * (Sanctum's legacy lookup by hash) would let a client skip the id and cost us an index scan.
 */
export function parsePlainToken(plain: string): ParsedToken | null {
  const match = PLAIN_TOKEN.exec(plain);
  if (match === null) return null;
  const id = Number(match[1]);
  if (id > MAX_ID || !crc32Matches(match[2]!, match[3]!)) return null;
  return { id, secret: plain.slice(match[1]!.length + 1) };
}

/** `<id>|<prefix><40 [A-Za-z0-9]><8 hex>`: id without leading zeros, a prefix of at most 32 characters. */
const PLAIN_TOKEN = /^([1-9][0-9]{0,9})\|[A-Za-z0-9_-]{0,32}([A-Za-z0-9]{40})([0-9a-f]{8})$/;

/**
 * The older plaintext forms Sanctum issued, for tokens imported from Laravel only (docs/guides/moving-from-laravel.md):
 * `<id>|<secret>` whose secret fails the strict shape (before Sanctum 3.3: 40 characters, no
 * checksum), or a bare secret without `<id>|`, which Sanctum finds by its hash. The secret must still
 * look like one Sanctum made (an optional prefix and at least 40 [A-Za-z0-9]), so obvious garbage is
 * refused here, before any database read.
 */
export type LegacyToken = { readonly id: number; readonly secret: string } | { readonly secret: string };

export function parseLegacyToken(plain: string): LegacyToken | null {
  // Longer than any legacy form: refused before the pattern, which backtracks through a long string
  // (a JWT access token tried by this guard first took 3.3 µs here).
  if (plain.length > LEGACY_MAX_LENGTH) return null;
  const match = LEGACY_TOKEN.exec(plain);
  if (match === null) return null;
  const secret = match[2]!;
  if (match[1] === undefined) return { secret };
  const id = Number(match[1]);
  return id > MAX_ID ? null : { id, secret };
}

const LEGACY_TOKEN = /^(?:([1-9][0-9]{0,9})\|)?([A-Za-z0-9_-]{0,32}[A-Za-z0-9]{40}(?:[0-9a-f]{8})?)$/;
/** The longest string LEGACY_TOKEN matches: a 10-digit id, `|`, a 32-character prefix, 40 + 8. */
const LEGACY_MAX_LENGTH = 10 + 1 + 32 + 40 + 8;

/**
 * Extracts the token from an `Authorization: Bearer …` header value; null when absent or not Bearer:
 * the scheme in any case (RFC 7235), spaces or tabs around one credential without whitespace. Read by
 * hand, not with a pattern: every API request passes here twice (one guard each), and a pattern
 * over a JWT access token cost about 0.5 µs a time.
 */
export function bearerFrom(header: string | undefined): string | null {
  if (header === undefined || header.length < 8 || header.slice(0, 6).toLowerCase() !== 'bearer') return null;
  let start = 6;
  while (isBlank(header.charCodeAt(start))) start++;
  let end = header.length;
  while (end > start && isBlank(header.charCodeAt(end - 1))) end--;
  if (start === 6 || end === start) return null;
  const token = header.slice(start, end);
  return WHITESPACE.test(token) ? null : token;
}

const WHITESPACE = /\s/;
const isBlank = (code: number) => code === 32 || code === 9;
