import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Outbox payloads are rendered mails and may hold a live reset link, so they are sealed with
 * AES-256-GCM under a key derived (HKDF-SHA256) from APP_KEY for this purpose only: a database dump
 * alone does not yield working links, and the derived key is useless for signing anything else.
 */
export interface PayloadCipher {
  seal(plain: string): string;
  /** Throws when the payload was tampered with or sealed under another APP_KEY. */
  open(sealed: string): string;
}

const VERSION = 'v1';
const INFO = 'gatehouse/mail-outbox/v1';
// Bound to the table so a payload cannot be replayed as ciphertext of another feature using this scheme.
const AAD = Buffer.from('mail_outbox');

export function createPayloadCipher(appKey: Buffer): PayloadCipher {
  const key = Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), INFO, 32));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(AAD);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()].map(encode).join('.');
    },
    open(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || body === undefined || !tag)
        throw new Error('malformed outbox payload');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
        authTagLength: 16,
      });
      decipher.setAAD(AAD);
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
