import type { Kysely } from 'kysely';
import { type AuditContext, recordAudit } from '../../audit/audit.ts';
import type { Config } from '../../config.ts';
import { parseId } from '../../db/ids.ts';
import type { Database, Db } from '../../db/schema.ts';
import { hmacSha256Hex, safeEqual, sha1Hex } from '../../lib/crypto.ts';
import type { Mailing } from '../../mail/mailing.ts';
import { verifyEmailMessage } from '../../mail/messages.ts';
import type { User } from '../../users/user.ts';
import { setEmailVerified } from '../../users/users.repository.ts';

/**
 * E-mail verification links, Laravel-compatible in spirit:
 * `{APP_URL}/email/verify/{id}/{sha1(email)}?expires={unix}&signature={hex}` where the signature is
 * HMAC-SHA256 with APP_KEY over the URL without its signature. The link is stateless (nothing stored):
 * it names the user and the address it vouches for, so it stops working when the address changes.
 */
export interface VerificationSettings {
  readonly appUrl: string;
  readonly appKey: Buffer;
  readonly expireMinutes: number;
}

export function verificationSettings(
  config: Pick<Config, 'appUrl' | 'appKey' | 'verificationExpireMinutes'>,
): VerificationSettings {
  return { appUrl: config.appUrl, appKey: config.appKey, expireMinutes: config.verificationExpireMinutes };
}

export interface SignedLink {
  readonly url: string;
  readonly signature: string;
  readonly expires: number;
}

/**
 * Where a signed e-mail link points: verification (docs/guides/sessions-and-spas.md), an address change,
 * or the cancelling of one from the old address (docs/guides/account.md).
 */
export type EmailLinkPath = '/email/verify' | '/email/change' | '/email/cancel-change';

function unsignedUrl(
  settings: VerificationSettings,
  path: EmailLinkPath,
  id: string,
  hash: string,
  expires: string,
) {
  // Always APP_URL, never the request's Host: the same string is signed when mailing and when checking.
  return `${settings.appUrl}${path}/${id}/${hash}?expires=${expires}`;
}

/** `{APP_URL}{path}/{id}/{sha1(email)}?expires=&signature=`: names the user and the address it vouches for. */
export function signedEmailLink(
  settings: VerificationSettings,
  path: EmailLinkPath,
  user: Pick<User, 'id' | 'email'>,
  now: number,
): SignedLink {
  const expires = Math.floor(now / 1000) + settings.expireMinutes * 60;
  const unsigned = unsignedUrl(settings, path, String(user.id), sha1Hex(user.email), String(expires));
  const signature = hmacSha256Hex(settings.appKey, unsigned);
  return { url: `${unsigned}&signature=${signature}`, signature, expires };
}

export function verificationLink(
  settings: VerificationSettings,
  user: Pick<User, 'id' | 'email'>,
  now: number,
): SignedLink {
  return signedEmailLink(settings, '/email/verify', user, now);
}

/** The parts of a clicked link, exactly as they came in the request (all untrusted). */
export interface PresentedLink {
  readonly id: string;
  readonly hash: string;
  readonly expires: unknown;
  readonly signature: unknown;
}

export type LinkCheck = 'valid' | 'invalid' | 'expired' | 'other-user';

/**
 * Checks a link for the signed-in user and the address it must vouch for: signature first
 * (constant-time), then expiry, then that the link is this user's and for `email`. Every failure is a
 * 403 for the caller; the distinct values exist for tests and audit only.
 */
export function checkSignedEmailLink(
  settings: VerificationSettings,
  path: EmailLinkPath,
  user: { readonly id: number; readonly email: string },
  link: PresentedLink,
  now: number,
): LinkCheck {
  const { id, hash, expires, signature } = link;
  if (
    typeof expires !== 'string' ||
    typeof signature !== 'string' ||
    !/^\d{1,12}$/.test(expires) ||
    parseId(id) === null ||
    !/^[0-9a-f]{40}$/.test(hash)
  ) {
    return 'invalid';
  }
  const expected = hmacSha256Hex(settings.appKey, unsignedUrl(settings, path, id, hash, expires));
  if (!safeEqual(expected, signature.toLowerCase())) return 'invalid';
  if (Number(expires) * 1000 <= now) return 'expired';
  if (Number(id) !== user.id || !safeEqual(hash, sha1Hex(user.email))) return 'other-user';
  return 'valid';
}

/** A verification link for the signed-in user's current address. */
export function checkVerificationLink(
  settings: VerificationSettings,
  user: Pick<User, 'id' | 'email'>,
  link: PresentedLink,
  now: number,
): LinkCheck {
  return checkSignedEmailLink(settings, '/email/verify', user, link, now);
}

/**
 * Marks the address verified. The conditional UPDATE (… WHERE email_verified_at IS NULL) makes one of
 * any number of concurrent clicks the winner; only the winner writes the audit row. Returns whether
 * this call verified (false: it already was — a second click is harmless).
 */
export async function markEmailVerified(
  db: Kysely<Database>,
  userId: number,
  audit: AuditContext,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await setEmailVerified(trx, userId, audit.now))) return false;
    await recordAudit(trx, 'email.verified', { ...audit, actorId: audit.actorId ?? userId }, userId);
    return true;
  });
}

/**
 * Queues a verification mail through `db` — pass the registration's transaction so the mail exists
 * exactly when the account does. The caller wakes the queue after its commit.
 */
export async function queueVerificationMail(
  db: Db,
  mailing: Mailing,
  settings: VerificationSettings,
  user: Pick<User, 'id' | 'email' | 'name' | 'locale'>,
  now: number,
): Promise<void> {
  const link = verificationLink(settings, user, now);
  const message = verifyEmailMessage(
    mailing.context,
    // No name: this address is the one not proven yet (docs/security.md, mail/messages.ts recipientFor).
    { email: user.email, locale: user.locale },
    { url: link.url, signature: link.signature, expiresInMinutes: settings.expireMinutes },
  );
  await mailing.queue.enqueue(db, message);
}

/** "Resend" for a signed-in, still unverified user; false when there is nothing to verify. */
export async function resendVerificationMail(
  db: Db,
  mailing: Mailing,
  settings: VerificationSettings,
  user: User,
  locale: string,
  now: number,
): Promise<boolean> {
  if (user.emailVerifiedAt !== null) return false;
  // The request's language: the user is looking at the page that asked for this mail.
  await queueVerificationMail(db, mailing, settings, { ...user, locale }, now);
  mailing.queue.wake();
  return true;
}
