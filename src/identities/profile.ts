import { isEmail } from '../lib/validation.ts';
import { normaliseEmail } from '../users/user.ts';

/**
 * Who a provider says signed in, after every check of its answer passed (docs/guides/login-providers.md).
 * `subject` is the provider's stable id; the address is only as good as `emailVerified` says.
 */
export interface UpstreamProfile {
  readonly provider: string;
  readonly subject: string;
  /** Normalised (users/user.ts), or null when the provider gave none that is an address. */
  readonly email: string | null;
  /** The provider asserted that the person controls `email`. */
  readonly emailVerified: boolean;
  /** A display name for a new account; null when the provider gave none. */
  readonly name: string | null;
}

/** The longest subject a row holds (identities.subject): OpenID Connect caps `sub` at 255 ASCII characters. */
export const SUBJECT_MAX = 255;

/** Builds a profile from what a provider sent, refusing what cannot identify anybody. */
export function upstreamProfile(
  provider: string,
  raw: { subject: unknown; email: unknown; emailVerified: unknown; name: unknown },
): UpstreamProfile | null {
  const subject = typeof raw.subject === 'number' ? String(raw.subject) : raw.subject;
  if (typeof subject !== 'string' || subject === '' || subject.length > SUBJECT_MAX) return null;
  const email = typeof raw.email === 'string' && isEmail(raw.email.trim()) ? normaliseEmail(raw.email) : null;
  return {
    provider,
    subject,
    email,
    // Only an explicit yes counts (some providers send the string "true"); absent means unverified.
    emailVerified: email !== null && (raw.emailVerified === true || raw.emailVerified === 'true'),
    name: displayName(raw.name),
  };
}

/** One line of at most 255 characters (users.name), without control characters; null when nothing is left. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

function displayName(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const line = raw.replace(CONTROL, ' ').trim().slice(0, 255).trim();
  return line === '' ? null : line;
}
