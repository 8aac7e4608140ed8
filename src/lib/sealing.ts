import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption at rest under APP_KEY: AES-256-GCM with a key derived (HKDF-SHA256) from
 * APP_KEY for one purpose only (`info`), so a key that seals mail payloads opens nothing else and a
 * database dump alone opens nothing at all. The associated data names what a value is (a table, a
 * column, a user): a sealed value copied into another row or column fails to open instead of being
 * accepted as that other secret.
 */
export interface Sealer {
  seal(plain: string, associated: string): string;
  /** Throws when the value was tampered with, moved, or sealed under another APP_KEY. */
  open(sealed: string, associated: string): string;
}

const VERSION = 'v1';

export function createSealer(appKey: Buffer, info: string): Sealer {
  const key = Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), info, 32));
  return {
    seal(plain, associated) {
      // A fresh 96-bit IV per value: GCM's nonce must never repeat under one key.
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(associated));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()].map(encode).join('.');
    },
    open(sealed, associated) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || body === undefined || !tag) throw new Error('malformed sealed value');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
        authTagLength: 16,
      });
      decipher.setAAD(Buffer.from(associated));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

function encode(part: string | Buffer): string {
  return typeof part === 'string' ? part : part.toString('base64url');
}
