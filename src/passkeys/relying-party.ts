import { createHmac, hkdfSync } from 'node:crypto';
import { isIP } from 'node:net';

/** Who the passkeys belong to, as browsers and authenticators see it (docs/guides/passkeys.md). */
export interface RelyingParty {
  /** The hostname of APP_URL (no port): a passkey works on this host and, by WebAuthn's rules, only here. */
  readonly id: string;
  /** The origin of APP_URL: the only page origin whose ceremonies are accepted. */
  readonly origin: string;
  /** APP_NAME, which the browser's dialog shows. */
  readonly name: string;
  /**
   * Whether browsers accept `id` as a passkey domain at all: WebAuthn wants a domain name (`localhost`
   * included), and every browser refuses an IP address (a SecurityError), so pages offer no passkey
   * button that could only fail (docs/guides/passkeys.md).
   */
  readonly usable: boolean;
}

/**
 * Both come from APP_URL, never from a request's Host header: a response signed for a page on another
 * origin (a phishing copy of ours, or a sibling host behind the same proxy) carries that origin in its
 * client data and is refused.
 */
export function relyingParty(appUrl: string, appName: string): RelyingParty {
  const url = new URL(appUrl);
  const usable = isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0;
  return { id: url.hostname, origin: url.origin, name: appName, usable };
}

/**
 * The WebAuthn user handle of a user (32 bytes, base64url): an HMAC of the user id under a key derived
 * from APP_KEY for this purpose only. It is stable (a second passkey on one authenticator replaces the
 * first instead of piling up), carries no personal data (the spec asks for none: authenticators show
 * and sync it) and cannot be guessed from an id. Each passkey stores the handle it was made with, so a
 * changed APP_KEY does not lock existing passkeys out.
 */
export function userHandleFor(appKey: Buffer, userId: number): string {
  const key = Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), 'gatehouse/passkeys/user-handle', 32));
  return createHmac('sha256', key).update(String(userId)).digest('base64url');
}
