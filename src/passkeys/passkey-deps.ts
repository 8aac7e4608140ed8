import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Mailing } from '../mail/mailing.ts';
import type { RelyingParty } from './relying-party.ts';

/** What every passkey use case is given (bound once in passkeys.service.ts). */
export interface PasskeyDeps {
  readonly db: Kysely<Database>;
  readonly mailing: Mailing;
  readonly relyingParty: RelyingParty;
  /** Derives the WebAuthn user handles (relying-party.ts). */
  readonly appKey: Buffer;
}

/** Names are the user's own labels ("Phone", "YubiKey 5"): one line, as a token's name. */
export const PASSKEY_NAME_MAX = 255;
