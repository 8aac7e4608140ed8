import { hmacSha256Hex, safeEqual } from '../lib/crypto.ts';

/**
 * The link of an organization's invitation (docs/guides/organizations.md):
 * `{APP_URL}/org-invitations/{id}?token={secret}&expires={unix}&signature={hex}`.
 * - `token`: 32 random bytes, stored only as its SHA-256, spent by the one acceptance that deletes the
 *   row (single use);
 * - `signature`: HMAC-SHA256 with APP_KEY over the URL without it, so a link is ours even to someone
 *   who can read the database: an unsigned or altered one (another id, a later expiry) is refused
 *   before anything is looked up.
 */
export interface InvitationLinkSettings {
  readonly appUrl: string;
  readonly appKey: Buffer;
}

/** The link's parts as a request brings them (all untrusted). */
export interface PresentedInvitation {
  readonly id: string;
  readonly token: unknown;
  readonly expires: unknown;
  readonly signature: unknown;
}

export const INVITATION_PATH = '/org-invitations';

function unsigned(settings: InvitationLinkSettings, id: string, token: string, expires: string): string {
  // APP_URL, never the request's Host: the same text is signed when mailing and when checking.
  return `${settings.appUrl}${INVITATION_PATH}/${id}?token=${token}&expires=${expires}`;
}

export function invitationLink(
  settings: InvitationLinkSettings,
  id: number,
  token: string,
  expiresAt: number,
): { readonly url: string; readonly signature: string } {
  const url = unsigned(settings, String(id), token, String(Math.floor(expiresAt / 1000)));
  const signature = hmacSha256Hex(settings.appKey, url);
  return { url: `${url}&signature=${signature}`, signature };
}

export type LinkCheck =
  | { readonly status: 'signed'; readonly id: number; readonly token: string }
  | { readonly status: 'invalid' | 'expired' };

/**
 * The signature first (constant time), then the signed expiry. Only a link that passes both names an
 * invitation worth looking up; its row decides the rest (invitations.ts).
 */
export function checkInvitationLink(
  settings: InvitationLinkSettings,
  link: PresentedInvitation,
  now: number,
): LinkCheck {
  const { token, expires, signature } = link;
  if (
    !/^[1-9][0-9]{0,9}$/.test(link.id) ||
    typeof token !== 'string' ||
    !/^[A-Za-z0-9_-]{43}$/.test(token) ||
    typeof expires !== 'string' ||
    !/^[0-9]{1,12}$/.test(expires) ||
    typeof signature !== 'string' ||
    signature.length > 128
  ) {
    return { status: 'invalid' };
  }
  const expected = hmacSha256Hex(settings.appKey, unsigned(settings, link.id, token, expires));
  if (!safeEqual(signature, expected)) return { status: 'invalid' };
  if (Number(expires) * 1000 <= now) return { status: 'expired' };
  return { status: 'signed', id: Number(link.id), token };
}
