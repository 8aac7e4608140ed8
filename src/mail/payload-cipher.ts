import { createSealer } from '../lib/sealing.ts';

/**
 * Outbox payloads are rendered mails and may hold a live reset link, so they are sealed
 * (lib/sealing.ts: AES-256-GCM under a key derived from APP_KEY for this purpose only): a database dump
 * alone does not yield working links, and the derived key is useless for signing anything else.
 */
export interface PayloadCipher {
  seal(plain: string): string;
  /** Throws when the payload was tampered with or sealed under another APP_KEY. */
  open(sealed: string): string;
}

const INFO = 'gatehouse/mail-outbox/v1';
// Bound to the table so a payload cannot be replayed as ciphertext of another feature using this scheme.
const AAD = 'mail_outbox';

export function createPayloadCipher(appKey: Buffer): PayloadCipher {
  const sealer = createSealer(appKey, INFO);
  return {
    seal: (plain) => sealer.seal(plain, AAD),
    open: (sealed) => sealer.open(sealed, AAD),
  };
}
