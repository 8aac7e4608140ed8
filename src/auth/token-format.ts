import { crc32Hex, randomAlnum } from '../lib/crypto.ts';

/** Largest id a token row can have (PostgreSQL `serial`); anything bigger cannot exist. */
const MAX_ID = 2_147_483_647;

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
  const bar = plain.indexOf('|');
  if (bar < 1 || bar > 10) return null;
  const idPart = plain.slice(0, bar);
  if (!/^[1-9][0-9]*$/.test(idPart)) return null;
  const id = Number(idPart);
  if (id > MAX_ID) return null;
  const secret = plain.slice(bar + 1);
  if (secret.length < 48 || secret.length > 80) return null;
  const entropy = secret.slice(-48, -8);
  const checksum = secret.slice(-8);
  if (!/^[A-Za-z0-9]{40}$/.test(entropy) || !/^[A-Za-z0-9_-]*$/.test(secret.slice(0, -48))) return null;
  if (crc32Hex(entropy) !== checksum) return null;
  return { id, secret };
}

/** Extracts the token from an `Authorization: Bearer …` header value; null when absent or not Bearer. */
export function bearerFrom(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : null;
}
