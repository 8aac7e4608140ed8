import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * One row per passkey (a WebAuthn credential) of a user. Nothing here is secret: the private key never
 * leaves the authenticator; the row holds its public key (COSE, base64url) and the signature counter.
 */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 (hex) of `credential_id`: the unique key a sign-in looks the passkey up by. */
  credential_hash: string;
  /** The credential id as the browser reports it (base64url). */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter as last seen; 0 for authenticators that do not count. */
  counter: number;
  /** A JSON array of transport hints ("internal", "hybrid", "usb" …), given back in excludeCredentials. */
  transports: string;
  /** The WebAuthn user handle the credential was created for (base64url); a sign-in must present it. */
  user_handle: string;
  name: string;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
}

export type PasskeyRow = Selectable<PasskeysTable>;
export type NewPasskeyRow = Insertable<PasskeysTable>;

/**
 * A challenge handed to a browser and not used yet. Only its SHA-256 is kept: the row proves a
 * challenge was issued to this browser session, for this purpose (and user), until `expires_at`.
 */
export interface PasskeyChallengesTable {
  challenge_hash: string;
  /** HMAC of the browser's session cookie id (http/session): the session the challenge belongs to. */
  session_binding: string;
  purpose: ChallengePurpose;
  /** The signed-in user a registration challenge was issued to; null for sign-in challenges. */
  user_id: number | null;
  expires_at: number;
}

export type ChallengePurpose = 'register' | 'login';
